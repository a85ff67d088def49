import { describe, expect, it } from 'vitest';
import type { DeliveryStatusStore, DeliveryStatusUpdate } from '../../functions/core/provider/delivery-status';
import { ControlledClock } from '../support/controlled-clock';
import { snsNotificationBody, sqsEvent } from './eum-fixtures';
import { StatusHarness } from './status-harness';
import { sesEvent } from './status-fixtures';

const AT = '2026-11-29T12:00:00.000Z';
const KEY_OK = 'a'.repeat(64);
const KEY_OUTAGE = 'b'.repeat(64);

/** A ledger whose write for one key fails (an outage on its partition), and records every other. */
function storeFailingFor(failingKey: string): DeliveryStatusStore & { recorded: { key: string; update: DeliveryStatusUpdate }[] } {
  const recorded: { key: string; update: DeliveryStatusUpdate }[] = [];
  return {
    recorded,
    async recordDeliveryStatus(key, update) {
      if (key === failingKey) throw Object.assign(new Error('ledger unavailable'), { name: 'InternalServerError' });
      recorded.push({ key, update });
      return 'recorded';
    },
    keyForSmsMessageId: async () => undefined,
    consentKeyOfRow: async () => undefined,
    suppressAfterAcceptance: async () => false,
  };
}

describe('SES events through SNS and the status queue (an SQS batch)', () => {
  it('decodes SNS-wrapped SES events and raw ones with the same decoder as the SMS events', async () => {
    const store = storeFailingFor('none');
    const status = new StatusHarness(store, new ControlledClock(Date.parse(AT)));
    const wrapped = snsNotificationBody(sesEvent('Delivery', { key: KEY_OK, claimVersion: 1, mailAt: AT }));
    const raw = sesEvent('Bounce', { key: KEY_OUTAGE, claimVersion: 1, mailAt: AT });
    expect(await status.invoke(sqsEvent(wrapped, raw))).toMatchObject({ kind: 'sqs', recorded: 2, batchItemFailures: [] });
    expect(store.recorded.map((r) => [r.key, r.update.status]).sort()).toEqual([
      [KEY_OK, 'Delivery'],
      [KEY_OUTAGE, 'Bounce'],
    ]);
  });

  it('answers a partial batch response: only the record whose ledger write failed comes back', async () => {
    const store = storeFailingFor(KEY_OUTAGE);
    const status = new StatusHarness(store, new ControlledClock(Date.parse(AT)));
    const event = sqsEvent(
      snsNotificationBody(sesEvent('Delivery', { key: KEY_OK, claimVersion: 1, mailAt: AT })),
      snsNotificationBody(sesEvent('Delivery', { key: KEY_OUTAGE, claimVersion: 1, mailAt: AT })),
    );
    const failing = event.Records[1]!.messageId;
    expect(await status.invoke(event)).toMatchObject({ recorded: 1, batchItemFailures: [{ itemIdentifier: failing }] });
    expect(store.recorded.map((r) => r.key)).toEqual([KEY_OK]);
  });

  it('fails the invocation when no record of the batch could be recorded', async () => {
    const status = new StatusHarness(storeFailingFor(KEY_OUTAGE), new ControlledClock(Date.parse(AT)));
    await expect(status.invoke(sqsEvent(snsNotificationBody(sesEvent('Delivery', { key: KEY_OUTAGE, claimVersion: 1, mailAt: AT }))))).rejects.toThrow(
      /none of 1 SQS records/,
    );
  });
});
