import { describe, expect, it } from 'vitest';
import { OutboxProvider } from '../../functions/adapters/outbox-provider';
import type { DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { METRIC } from '../../functions/core/observability/metric-names';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { ReclaimerHarness, plansOf, seedDeadClaims } from './reclaimer-harness';

const db = useTestLedger();

/** A provider that takes a little while, so contenders overlap while one of them is mid-send. */
function slow(ms: number) {
  return (inner: DeliveryProvider): DeliveryProvider => ({
    async send(request, signal) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return inner.send(request, signal);
    },
    ...(inner.lookup ? { lookup: (key: string) => inner.lookup!(key) } : {}),
  });
}

const ROWS = 12;

/** `ROWS` stale rows of `messageClass` whose worker died after its claim, or after the provider accepted. */
async function staleRows(sender: SenderHarness, prefix: string, messageClass: string, diedAfterSend: boolean) {
  const events = Array.from({ length: ROWS }, (_, i) => loginCodeEvent({ eventId: `${prefix}-${i}`, messageClass }));
  const rows: LedgerRow[] = [];
  for (const event of events) rows.push(...(await seedDeadClaims(db.ledger, event, sender.clock.now())));
  if (diedAfterSend) {
    const outbox = new OutboxProvider(sender.outboxFile, sender.clock.now);
    for (const event of events) {
      const plan = plansOf(event)[0]!;
      if (!plan.prepared.ok) throw new Error('seed plan not sendable');
      await outbox.send({ ...plan.prepared.request, claimVersion: 1 }, AbortSignal.timeout(1_000));
    }
  }
  sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
  return { events, keys: rows.map((r) => r.key) };
}

describe('contenders for the same stale rows never send twice', () => {
  it.each([
    { messageClass: 'otp', diedAfterSend: false, callsPerKey: 1 },
    { messageClass: 'otp', diedAfterSend: true, callsPerKey: 2 }, // the dead worker's call + exactly one resend
    { messageClass: 'transactional', diedAfterSend: false, callsPerKey: 1 },
    { messageClass: 'transactional', diedAfterSend: true, callsPerKey: 1 },
    { messageClass: 'marketing', diedAfterSend: true, callsPerKey: 1 },
  ])(
    'two reclaimers and a live sender redelivery at once ($messageClass, died after send: $diedAfterSend)',
    async ({ messageClass, diedAfterSend, callsPerKey }) => {
      const sender = new SenderHarness({ ledger: db.ledger, wrapProvider: slow(15) });
      const { events, keys } = await staleRows(sender, `evt-race-${messageClass}-${diedAfterSend}`, messageClass, diedAfterSend);
      const options = { ledger: db.ledger, clock: sender.clock, outboxFile: sender.outboxFile, wrapProvider: slow(15) };
      const first = new ReclaimerHarness(options);
      const second = new ReclaimerHarness(options);

      const records = events.map((e) => sqsRecord(JSON.stringify(e)));
      await Promise.all([sender.invoke(...records), first.run(), second.run()]);
      // Whoever lost a race left the row to the winner; settle any row a winner released, then count.
      for (let round = 0; round < 3; round += 1) {
        sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
        await Promise.all([sender.invoke(...records), first.run(), second.run()]);
      }

      const calls = await sender.callsPerKey(); // counted from the outbox file, not from the ledger
      for (const key of keys) {
        expect(calls.get(key) ?? 0).toBe(callsPerKey);
        expect(['SENT', 'UNKNOWN']).toContain((await db.ledger.get(key))?.state);
      }
      const takeovers =
        sender.metrics.get(METRIC.StaleClaimTakeover) +
        first.metrics.get(METRIC.StaleClaimTakeover) +
        second.metrics.get(METRIC.StaleClaimTakeover);
      expect(takeovers).toBe(ROWS); // exactly one winner per row
    },
  );

  it('a reclaimer leaves a row alone while a live sender holds a fresh claim', async () => {
    let releaseSend: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => {
      releaseSend = resolve;
    });
    let sendStarted: (() => void) | undefined;
    const started = new Promise<void>((resolve) => {
      sendStarted = resolve;
    });
    const sender = new SenderHarness({
      ledger: db.ledger,
      wrapProvider: (inner) => ({
        async send(request, signal) {
          sendStarted?.();
          await gate;
          return inner.send(request, signal);
        },
      }),
    });
    const event = loginCodeEvent({ eventId: 'evt-race-live-sender', messageClass: 'otp' });
    const invocation = sender.invoke(sqsRecord(JSON.stringify(event)));
    await started;

    // Well inside the claim timeout (the function timeout is shorter): not stale, not touched.
    sender.clock.advance(CLAIM_TIMEOUT_MS / 2);
    const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock: sender.clock, outboxFile: sender.outboxFile });
    expect(await reclaimer.run()).toMatchObject({ found: 0, skipped: 0 });

    releaseSend?.();
    expect((await invocation).batchItemFailures).toEqual([]);
    expect((await sender.outbox()).length).toBe(1);
  });
});
