import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { ratePerProcess, SendRateGovernor } from '../../functions/core/policy/send-rate-governor';
import { orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { sqsRecord } from '../support/sqs-event';
import { startWireRig, type WireRig } from './wire-harness';

const db = useTestLedger();
// Low enough that even a loaded machine bursts past it without the governor (60 sends in a few seconds).
const SES_RATE = 10;
let rig: WireRig;
beforeAll(async () => {
  rig = await startWireRig(db, { ses: { limits: { maxPerSecond: SES_RATE } } });
});
afterAll(async () => rig?.stop());

/** One event with ten e-mail recipients: ten messages. */
function tenEmails(eventId: string): NotificationEvent {
  return orderShippedEvent({
    eventId,
    recipients: Array.from({ length: 10 }, (_, i) => ({ recipientId: `r-${i}`, email: `r${i}@shop.test`, channels: ['email'] as const })),
  });
}

/** Three execution environments, two batches each, all at once against the local SES's rate limit. */
async function burst(prefix: string, governor: (() => SendRateGovernor) | undefined) {
  const senders = Array.from({ length: 3 }, () => rig.sender(undefined, governor?.()));
  await Promise.all(
    senders.map((sender, s) =>
      Promise.all([0, 1].map((b) => sender.invoke(sqsRecord(JSON.stringify(tenEmails(`${prefix}-${s}-${b}`)))))),
    ),
  );
  const count = (metric: (typeof METRIC)[keyof typeof METRIC]) => senders.reduce((sum, sender) => sum + sender.metrics.get(metric), 0);
  return { throttled: count(METRIC.ProviderThrottled), sent: count(METRIC.Sent), failed: count(METRIC.PermanentFailure) };
}

describe('the send-rate governor keeps concurrent invocations under the account rate, on the wire', () => {
  it('without it, the local SES throttles the burst (and nothing throttled is FAILED)', async () => {
    const result = await burst('evt-rate-off', undefined);
    expect(result.throttled).toBeGreaterThan(10);
    expect(result.failed).toBe(0);
  });

  it('with the account rate split over the three environments, SES throttles (almost) nothing and all 60 go out', async () => {
    // 75% of the account rate: the local server counts a rolling second, and arrival times jitter.
    const governor = () => new SendRateGovernor(ratePerProcess({ email: SES_RATE * 0.75 }, 3));
    await new Promise((resolve) => setTimeout(resolve, 1_100)); // let the previous burst leave SES's rolling second
    const result = await burst('evt-rate-on', governor);
    // A stalled event loop on a loaded 2-core machine can bunch a few sends into one second.
    expect(result.throttled).toBeLessThanOrEqual(2);
    expect(result.sent + result.throttled).toBe(60);
    expect(result.sent).toBeGreaterThanOrEqual(58);
  });
});
