import { Duration } from 'aws-cdk-lib';
import { LOCAL_END_USER_MESSAGING_PROPS } from './aws/local-sms-events';
import type { LocalStack } from './local-stack';

/** The props of the wire run's stack that `simulate --wire` takes from its command line. */
export interface WireStackOptions {
  /** The stack's `maxConcurrency`: the bulk lane's event source's maximum concurrency. @default 10 (the stack's default) */
  readonly concurrency?: number;
  /** The stack's `lanes.urgentMaxConcurrency`. @default 5 (the stack's default) */
  readonly urgentConcurrency?: number;
  /** The stack's `batchSize`. @default 10 */
  readonly batchSize?: number;
  /** The stack's `maxConcurrentSends` (MAX_CONCURRENT_SENDS inside one invocation). @default 4 */
  readonly sendsPerInvocation?: number;
  /** The stack's `maxReceiveCount`. @default 100 (the stack's default) */
  readonly maxReceiveCount?: number;
  /** Which service sends SMS; End User Messaging's events then reach the ledger through the status handler. @default 'sns' */
  readonly smsProvider?: 'sns' | 'end-user-messaging';
}

/**
 * The stack the wire run deploys locally: both lanes with the stack's defaults, the push application of the
 * workload's endpoints, and send rates, so each lane paces at its share and the bulk lane yields to
 * throttling. Timeouts scaled down (Lambda: 30 s function, 120 s claim) so redeliveries take seconds; the
 * invariants between them hold as in the stack. The transactional class's evidence wait is 3 s instead of
 * 300 s and the first backoff step 1 s in both lanes (both are props a stack may set).
 */
export function wireStack(options: WireStackOptions = {}): LocalStack {
  return {
    props: {
      emailFrom: 'notifications@mail.shop-notifier.dev',
      pushPlatformApplications: ['arn:aws:sns:us-east-1:123456789012:app/GCM/shop-app'],
      // Evidence waits and windows scaled like the timeouts: transactional's 300 s, otp's 30 s and marketing's
      // 300 s windows to 3 s (the windows apply only where the provider's events carry the key).
      messageClasses: [
        { name: 'transactional', onAmbiguous: 'lookup', lookupFallback: 'resend', evidenceWaitSeconds: 3 },
        // otp's fallback without evidence (120 s) scaled to 3 s too: the run's queues hold the delayed requests until then.
        { name: 'otp', onAmbiguous: 'resend', lookupFallback: 'resend', evidenceWaitSeconds: 0, evidenceWindowSeconds: 3, smsTimeToLiveSeconds: 600, fallback: { withoutEvidenceSeconds: 3 } },
        { name: 'marketing', onAmbiguous: 'give-up', evidenceWaitSeconds: 0, evidenceWindowSeconds: 3, smsType: 'Promotional', smsTimeToLiveSeconds: 86_400 },
      ],
      // The workload texts US numbers (+1 415): SMS on, as synth wants it stated, with either provider.
      smsCountries: ['US'],
      smsMonthlySpendLimitUsd: 100,
      ...(options.smsProvider === 'end-user-messaging' ? LOCAL_END_USER_MESSAGING_PROPS : {}),
      sendRates: { emailPerSecond: WIRE_SEND_RATE, smsPerSecond: WIRE_SEND_RATE, pushPerSecond: WIRE_SEND_RATE },
      throttleBackoff: { base: Duration.seconds(1) },
      maxConcurrency: options.concurrency ?? 10,
      lanes: { urgentMaxConcurrency: options.urgentConcurrency ?? 5 },
      batchSize: options.batchSize ?? 10,
      maxConcurrentSends: options.sendsPerInvocation ?? 4,
      maxReceiveCount: options.maxReceiveCount ?? 100,
    },
    // Generous for a 2-core machine running 15 invocations, the services and the proxies in one
    // process: a send timeout that a starved event loop misses is a real, but uninteresting, ambiguity.
    scaled: { functionTimeoutSeconds: 20, claimTimeoutSeconds: 21, sendTimeoutMs: 2000, visibilityTimeoutSeconds: 24, throttleBackoffCapSeconds: 4 },
  };
}
/** Account sends per second per channel: the urgent lane may use all of it in a burst, the bulk lane 80%. */
const WIRE_SEND_RATE = 100;
