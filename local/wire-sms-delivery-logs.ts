import type { LocalSnsOptions } from './aws/local-sns-server';
import type { WireFaultPlan } from './aws/wire-fault-plan';
import { SmsLogSubscription, type SmsLogSubscriptionConfig, type SmsLogSubscriptionCounts } from './sms-log-subscription';

/** How late a "late" text's delivery log comes: past the wire stack's 3 s evidence wait and windows. */
const LATE_LOG_MS = 5_000;

/** What the SNS delivery-log path carried in a run: the lines logged, and what the subscription delivered of them. */
export interface SmsDeliveryLogCounts extends SmsLogSubscriptionCounts {
  /** Lines the local SNS logged (one per accepted text). */
  readonly logged: number;
}

/**
 * SNS's SMS delivery-status logs in a wire run, on the stack's path: the local SNS logs each accepted text's line (as
 * SNS writes `DirectPublishToPhoneNumber`), the fault plan draws its fate per text (on time, late past the evidence
 * windows, or lost: the same draw, and counts, as End User Messaging's events), and the log subscription
 * ({@link SmsLogSubscription}: batches within Lambda's payload limit, asynchronous retries, the failure destination)
 * hands the lines to the real status handler over the run's (proxied) ledger. A line reaches its row only once the
 * sender wrote SNS's message id on it (the status function looks the key up by that id), as on AWS.
 */
export interface WireSmsDeliveryLogs {
  /** The local SNS's option that receives each line. */
  readonly snsOptions: Pick<LocalSnsOptions, 'deliveryLogs'>;
  /** Waits for the late lines, hands every line over once more (a failed batch its retries), and stops. */
  stop(): Promise<void>;
  readonly counts: SmsDeliveryLogCounts;
}

export function wireSmsDeliveryLogs(plan: WireFaultPlan, faults: { readonly late: number; readonly lost: number }, config: SmsLogSubscriptionConfig): WireSmsDeliveryLogs {
  const subscription = new SmsLogSubscription(config);
  const late = new Set<Promise<void>>();
  let logged = 0;
  subscription.start();
  return {
    get counts() {
      return { logged, ...subscription.counts };
    },
    snsOptions: {
      deliveryLogs: (message, timestamp, text) => {
        logged += 1;
        const fate = plan.eventFate(text.key, text.messageId, faults, LATE_LOG_MS);
        if (fate === 'drop') return;
        if (fate === 'deliver') return subscription.log(message, timestamp);
        const held = new Promise<void>((resolve) => setTimeout(resolve, fate.delayMs)).then(() => subscription.log(message, timestamp));
        late.add(held);
        void held.finally(() => late.delete(held));
      },
    },
    async stop() {
      while (late.size > 0) await Promise.all([...late]);
      await subscription.stop();
    },
  };
}
