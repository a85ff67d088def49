import { Duration } from 'aws-cdk-lib';
import type { Channel } from '../../functions/core/event/idempotency-key';
import type { LaneName } from '../../functions/core/policy/send-lanes';
import { laneSenderConfigs, resolveLocalStack, type LocalStack } from '../../local/local-stack';

/**
 * The stack the model runs, as a team would deploy it: both lanes, `otp` limited to 1 message per address
 * and 2 per recipient an hour (a few login codes to one person meet the limits in some schedules and not in
 * others), a 60 s function and 2 s send timeout. Marketing keeps its built-in 1 per recipient, channel and
 * template a day; transactional its 50 an hour (never reached). Each lane's workers run with the sender
 * configuration its cold start loads from the environment synth writes for that lane (local/local-stack.ts).
 */
export const MODEL_STACK: LocalStack = {
  props: {
    emailFrom: 'notifications@mail.shop-notifier.dev',
    functionTimeout: Duration.seconds(60),
    sendTimeout: Duration.seconds(2),
    messageClasses: [
      {
        name: 'otp',
        onAmbiguous: 'resend',
        lookupFallback: 'resend',
        evidenceWaitSeconds: 0,
        evidenceWindowSeconds: 30,
        smsType: 'Transactional',
        limits: [
          { scope: 'address', max: 1, windowSeconds: 3600 },
          { scope: 'recipient', max: 2, windowSeconds: 3600 },
        ],
      },
    ],
  },
};
export const STACK = resolveLocalStack(MODEL_STACK);
/** Each lane's sender configuration, loaded from its environment as its cold start loads it. */
export const LANE_CONFIGS = laneSenderConfigs(STACK);
/** The urgent lane's: the reclaimer's too, as the stack gives it that lane's environment. */
export const FIRST_LANE = STACK.lanes[0]!.name;
const RECLAIMER_CONFIG = LANE_CONFIGS.get(FIRST_LANE)!;
export const CLAIM_TIMEOUT_MS = RECLAIMER_CONFIG.claimTimeoutMs;
/** Lambda kills an invocation after this; the claim timeout exceeds it (a timing invariant checked at synth and cold start). */
export const FUNCTION_TIMEOUT_MS = RECLAIMER_CONFIG.functionTimeoutMs;
export const TIMING = { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RECLAIMER_CONFIG.retentionMs };
/** Schedule n starts n days after this: its limit windows (an hour, a day) are its own, on the table all schedules share. */
export const FIRST_START_MS = Date.parse('2026-11-29T12:00:00.000Z');
export const DAY_MS = 86_400_000;
export const CLASSES = RECLAIMER_CONFIG.messageClasses;
/** The longest no-evidence window of a class's fallback (otp's): recovery waits it out before the fallbacks are judged. */
export const LONGEST_FALLBACK_WINDOW_MS = Math.max(...['otp', 'transactional', 'marketing'].map((name) => (CLASSES.get(name)?.fallback?.withoutEvidenceSeconds ?? 0) * 1000));
export const EVIDENCE_WAIT_MS = (CLASSES.get('transactional')?.evidenceWaitSeconds ?? 300) * 1000;
/** Sender workers (execution environments) per lane. */
export const WORKERS_PER_LANE = 2;
/** Every worker's lane, by global worker number: each lane's workers side by side, the urgent lane's first. */
export const WORKER_LANES: readonly (LaneName | 'single')[] = STACK.lanes.flatMap(({ name }) => Array.from({ length: WORKERS_PER_LANE }, () => name));
export const WORKERS = WORKER_LANES.length;

/** The messages of every schedule: two of each class, over every channel, and two more login codes by SMS to the same number. */
export const MESSAGE_SHAPES: readonly { readonly messageClass: string; readonly channel: Channel; readonly templateId: string; readonly data: Record<string, unknown> }[] = [
  { messageClass: 'otp', channel: 'sms', templateId: 'login-code', data: { code: '482913', expiresInMinutes: 10 } },
  { messageClass: 'otp', channel: 'email', templateId: 'login-code', data: { code: '771204', expiresInMinutes: 10 } },
  { messageClass: 'transactional', channel: 'email', templateId: 'order-shipped', data: { orderId: '1001', carrier: 'DHL', trackingNumber: 'JD01' } },
  { messageClass: 'transactional', channel: 'sms', templateId: 'order-shipped', data: { orderId: '1002', carrier: 'UPS', trackingNumber: 'JD02' } },
  { messageClass: 'marketing', channel: 'email', templateId: 'weekly-offers', data: { headline: 'Half price', url: 'https://shop.example/offers' } },
  { messageClass: 'marketing', channel: 'push', templateId: 'weekly-offers', data: { headline: 'Half price', url: 'https://shop.example/offers' } },
  { messageClass: 'otp', channel: 'sms', templateId: 'login-code', data: { code: '305117', expiresInMinutes: 10 } },
  { messageClass: 'otp', channel: 'sms', templateId: 'login-code', data: { code: '918240', expiresInMinutes: 10 } },
];
export const MESSAGE_COUNT = MESSAGE_SHAPES.length;
