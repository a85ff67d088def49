import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import type { SendRequest } from '../../functions/core/templates/rendered-message';
import type { SendLedger } from '../../functions/core/ledger/send-ledger';
import { deliver, FRESH_CLAIM } from '../../functions/delivery/deliver-message';
import { plansOf, ReclaimerHarness, TIMING } from '../reclaimer/reclaimer-harness';
import { ControlledClock } from '../support/controlled-clock';
import { testDeliveryContext } from '../support/delivery-context';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { tempDir } from '../support/temp-dir';

/**
 * Regressions named after the bug classes the users of the best-known peer (Powertools
 * idempotency) keep reporting, on this sender's real delivery and ledger.
 */
const db = useTestLedger();

/** A provider whose first call waits until the test lets it answer `sent`; it records every call. */
function heldProvider() {
  const calls: SendRequest[] = [];
  let answer: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  const provider: DeliveryProvider = {
    async send(request): Promise<DeliveryOutcome> {
      calls.push(request);
      if (calls.length === 1) await answered;
      return { kind: 'sent', providerMessageId: `msg-${calls.length}` };
    },
  };
  return { provider, calls, answer };
}

const context = testDeliveryContext;

/** The real ledger whose claim request executes and then fails on every round (its answer lost each time). */
function claimAnswerAlwaysLost(inner: SendLedger): SendLedger {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'claim') {
        return async (row: LedgerRow, nowMs: number) => {
          await target.claim(row, nowMs);
          throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Lets the owner's claim and provider call start. */
/** Until the owner is inside its provider call (so its claim is written), however slow the machine. */
const ownerIsSending = (held: ReturnType<typeof heldProvider>) => vi.waitFor(() => expect(held.calls).toHaveLength(1), { timeout: 10_000 });

describe("peer bug classes (Powertools TS #5675, #5715, Python #8049)", () => {
  it.each([
    ['its claim is refused', (ledger: SendLedger) => ledger, {}],
    ['it reads the row first', (ledger: SendLedger) => ledger, { readBeforeClaim: true }],
    ['its own claim request errors (answer lost every time)', claimAnswerAlwaysLost, {}],
  ] as const)('a rejected duplicate never releases or deletes the owner\'s claim: %s', async (_case, duplicateLedger, extra) => {
    const clock = new ControlledClock();
    const [plan] = plansOf(loginCodeEvent({ eventId: `evt-peer-5675-${randomUUID()}` }));
    const held = heldProvider();
    const owner = deliver(plan!, FRESH_CLAIM, context(db.ledger, held.provider, clock));
    await ownerIsSending(held);
    const claimed = await db.ledger.get(plan!.key);
    expect(claimed).toMatchObject({ state: 'PENDING' });

    const duplicate = await deliver(plan!, FRESH_CLAIM, context(duplicateLedger(db.ledger), held.provider, clock, extra));
    expect(duplicate.settled).toBe(false);
    // The owner's claim is exactly as it was: same owner, version and lease, no release.
    expect(await db.ledger.get(plan!.key)).toEqual(claimed);

    held.answer();
    expect(await owner).toMatchObject({ settled: true, state: 'SENT', settledBy: 'provider-call' });
    expect(held.calls).toHaveLength(1);
  });

  it('a provider that mutates the request it is given cannot change which key is completed', async () => {
    const clock = new ControlledClock();
    const event = loginCodeEvent({ eventId: `evt-peer-5715-${randomUUID()}` });
    const [plan] = plansOf(event);
    const key = plan!.key;
    const calls: string[] = [];
    const mutating: DeliveryProvider = {
      async send(request): Promise<DeliveryOutcome> {
        calls.push(request.key);
        // A handler or template step that edits what it was given, as in the peer's bug.
        const writable = request as { -readonly [K in keyof SendRequest]: SendRequest[K] };
        writable.key = 'not-the-key';
        (writable.message as { to: string }).to = '+15005550006';
        return { kind: 'sent', providerMessageId: 'msg-1' };
      },
    };
    expect(await deliver(plan!, FRESH_CLAIM, context(db.ledger, mutating, clock))).toMatchObject({ settled: true, state: 'SENT' });
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT', providerMessageId: 'msg-1' });
    expect(await db.ledger.get('not-the-key')).toBeUndefined();

    // The event is planned again from the queue's copy: the same key, so the duplicate is suppressed.
    const [again] = plansOf(loginCodeEvent({ eventId: event.eventId }));
    expect(again!.key).toBe(key);
    expect(await deliver(again!, FRESH_CLAIM, context(db.ledger, mutating, clock))).toMatchObject({ settled: true, settledBy: 'earlier-attempt' });
    expect(calls).toEqual([key]);
  });

  it('a claim never looks stale while its owner may still be sending: up to its lease end, duplicates and the reclaimer leave it alone', async () => {
    const clock = new ControlledClock();
    const claimedAt = clock.now();
    const [plan] = plansOf(loginCodeEvent({ eventId: `evt-peer-8049-${randomUUID()}` }));
    const held = heldProvider();
    const owner = deliver(plan!, FRESH_CLAIM, context(db.ledger, held.provider, clock));
    await ownerIsSending(held);

    const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock, outboxFile: join(tempDir('peer-8049-'), 'outbox.jsonl') });
    // The owner's Lambda may run until its function timeout, and its claim lasts longer (checked at synth and cold start).
    for (const at of [1, TIMING.claimTimeoutMs / 2, TIMING.claimTimeoutMs - 1]) {
      clock.advance(claimedAt + at - clock.now());
      expect(await deliver(plan!, FRESH_CLAIM, context(db.ledger, held.provider, clock))).toMatchObject({ settled: false, why: 'owned-by-another-worker' });
      const run = await reclaimer.run();
      expect(run.resent + run.gaveUp + run.sent + run.failed).toBe(0);
    }
    expect(held.calls).toHaveLength(1);
    held.answer();
    expect(await owner).toMatchObject({ settled: true, state: 'SENT' });
  });
});
