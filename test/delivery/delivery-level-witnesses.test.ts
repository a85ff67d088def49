import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import type { SendLedger } from '../../functions/core/ledger/send-ledger';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import { METRIC } from '../../functions/core/observability/metric-names';
import { deliver, FRESH_CLAIM } from '../../functions/delivery/deliver-message';
import { KeptLedgerWrites } from '../../functions/delivery/kept-ledger-writes';
import type { MessagePlan } from '../../functions/delivery/message-plan';
import { deadClaimRow, plansOf, TIMING } from '../reclaimer/reclaimer-harness';
import { ControlledClock } from '../support/controlled-clock';
import { testDeliveryContext } from '../support/delivery-context';
import { loginCodeEvent, orderShippedEvent, weeklyOffersEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';

/**
 * Second witnesses, through the whole delivery and the real ledger on dynalite, for behaviours
 * that only one test caught before: each test here fails when its behaviour is broken, from what
 * the provider was asked to send and what the row says in the end.
 */
const db = useTestLedger();

class LedgerDown extends Error {
  override readonly name = 'ServiceUnavailable';
  /** As the SDK reports it: a 503, which a retry can fix. */
  readonly $metadata = { httpStatusCode: 503 };
}

/** The real ledger, with `complete` failing (every SDK attempt and every round) while `failing` is set. */
function ledgerWithFailingComplete(inner: SendLedger, state: { failing: boolean }): SendLedger {
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property === 'complete') {
        return async (...args: Parameters<SendLedger['complete']>) => {
          if (state.failing) throw new LedgerDown('complete failed');
          return target.complete(...args);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A provider answering from a script (then `sent`), counting every call that reached it. */
function scriptedProvider(...answers: DeliveryOutcome['kind'][]): DeliveryProvider & { calls: number } {
  const provider = {
    calls: 0,
    async send(): Promise<DeliveryOutcome> {
      provider.calls += 1;
      const kind = answers[provider.calls - 1] ?? 'sent';
      if (kind === 'ambiguous') return { kind, reason: 'SendTimeout: accepted, answer lost' };
      return { kind: 'sent', providerMessageId: `msg-${provider.calls}` };
    },
  };
  return provider;
}

const context = testDeliveryContext;

function onePlan(eventId: string, messageClass: string): MessagePlan {
  const event =
    messageClass === 'otp'
      ? loginCodeEvent({ eventId })
      : messageClass === 'marketing'
        ? weeklyOffersEvent({ eventId })
        : orderShippedEvent({ eventId, messageClass, recipients: [orderShippedEvent().recipients[1]!] });
  const [plan] = plansOf(event);
  return plan!;
}

describe('delivery-level witnesses', () => {
  it("a held copy of our own claim, executed after the outcome, never puts the SENT row back to PENDING (the claim retry's state clause)", async () => {
    const clock = new ControlledClock();
    const plan = onePlan('evt-witness-late-claim', 'otp');
    const provider = scriptedProvider();
    let claimed: { row: LedgerRow; nowMs: number } | undefined;
    const recording = new Proxy(db.ledger as SendLedger, {
      get(target, property, receiver) {
        if (property === 'claim') {
          return (row: LedgerRow, nowMs: number) => {
            claimed ??= { row, nowMs };
            return target.claim(row, nowMs);
          };
        }
        const value = Reflect.get(target, property, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    expect(await deliver(plan, FRESH_CLAIM, context(recording, provider, clock))).toMatchObject({ settled: true, state: 'SENT' });

    // The network delivers the first claim request again, late: the SDK's own copy of it.
    expect(await db.ledger.claim(claimed!.row, claimed!.nowMs)).toMatchObject({ claimed: false });
    expect(await db.ledger.get(plan.key)).toMatchObject({ state: 'SENT' });

    clock.advance(TIMING.claimTimeoutMs + 1);
    expect(await deliver(plan, FRESH_CLAIM, context(db.ledger, provider, clock))).toMatchObject({ settled: true, settledBy: 'earlier-attempt' });
    expect(provider.calls).toBe(1);
  });

  it('a send the provider accepted is never handed back as "not sent" when its outcome write fails: marketing is not mailed twice', async () => {
    const clock = new ControlledClock();
    const plan = onePlan('evt-witness-accepted-then-ledger-down', 'marketing');
    const provider = scriptedProvider('sent');
    const outage = { failing: true };
    expect(await deliver(plan, FRESH_CLAIM, context(ledgerWithFailingComplete(db.ledger, outage), provider, clock))).toMatchObject({
      settled: false,
      why: 'ledger-error',
    });

    outage.failing = false;
    for (const advance of [1_000, TIMING.claimTimeoutMs]) {
      clock.advance(advance);
      await deliver(plan, FRESH_CLAIM, context(db.ledger, provider, clock));
    }
    expect(provider.calls).toBe(1);
    expect((await db.ledger.get(plan.key))?.state).toMatch(/^(SENT|UNKNOWN)$/);
  });

  it('a write kept beyond the environment\'s capacity is forgotten and counted under the forgotten message\'s own channel and class', async () => {
    const clock = new ControlledClock();
    const kept = new KeptLedgerWrites(1);
    const metrics = new InMemoryMetrics();
    const ledger = ledgerWithFailingComplete(db.ledger, { failing: true });
    const first = onePlan('evt-witness-kept-first', 'marketing');
    const second = onePlan('evt-witness-kept-second', 'otp');
    for (const plan of [first, second]) {
      expect(await deliver(plan, FRESH_CLAIM, context(ledger, scriptedProvider('sent'), clock, { keptWrites: kept, metrics }))).toMatchObject({ why: 'ledger-error' });
    }
    expect(kept.size).toBe(1);
    expect(metrics.get(METRIC.OutcomeKept)).toBe(2);
    // The first message's SENT outcome is the one dropped: counted with its dimensions, not the newer message's.
    expect(metrics.byDimensions.get(`${METRIC.KeptLedgerWriteForgotten}|${first.identity.channel}|marketing`)).toBe(1);
    expect(metrics.get(METRIC.KeptLedgerWriteForgotten)).toBe(1);
  });

  it('a second ambiguous attempt starts its own evidence wait: no resend within the wait after the latest one', async () => {
    const clock = new ControlledClock();
    const plan = onePlan('evt-witness-second-ambiguity', 'transactional');
    const provider = scriptedProvider('ambiguous', 'ambiguous');
    const waitMs = plan.messageClass.evidenceWaitSeconds * 1000;

    expect(await deliver(plan, FRESH_CLAIM, context(db.ledger, provider, clock))).toMatchObject({ why: 'ambiguous-outcome' });
    clock.advance(waitMs + 1_000);
    const secondAt = clock.now();
    expect(await deliver(plan, FRESH_CLAIM, context(db.ledger, provider, clock))).toMatchObject({ why: 'ambiguous-outcome' });
    expect(provider.calls).toBe(2);
    expect(await db.ledger.get(plan.key)).toMatchObject({ lastAmbiguousAt: secondAt });

    clock.advance(10_000); // well past the first ambiguity's wait, inside the second's
    expect(await deliver(plan, FRESH_CLAIM, context(db.ledger, provider, clock))).toMatchObject({ why: 'waiting-for-evidence' });
    expect(provider.calls).toBe(2);

    clock.advance(waitMs);
    expect(await deliver(plan, FRESH_CLAIM, context(db.ledger, provider, clock))).toMatchObject({ settled: true, state: 'SENT' });
    expect(provider.calls).toBe(3);
  });

  it("a takeover of a dead owner's claim records the ambiguity on the row: a later attempt still gives a marketing message up", async () => {
    const clock = new ControlledClock();
    const plan = onePlan('evt-witness-takeover-flag', 'marketing');
    // The owner claimed and died (it may have sent): nothing but its claim is on the row.
    expect(await db.ledger.claim(deadClaimRow(plan, clock.now()), clock.now())).toEqual({ claimed: true });

    clock.advance(TIMING.claimTimeoutMs + 1);
    const provider = scriptedProvider();
    const outage = { failing: true };
    // The takeover lands; the give-up's outcome write fails, so the claim is handed back after the ledger error.
    expect(await deliver(plan, FRESH_CLAIM, context(ledgerWithFailingComplete(db.ledger, outage), provider, clock))).toMatchObject({
      why: 'ledger-error',
    });

    outage.failing = false;
    clock.advance(TIMING.claimTimeoutMs + 1);
    expect(await deliver(plan, FRESH_CLAIM, context(db.ledger, provider, clock))).toMatchObject({ settled: true, state: 'UNKNOWN' });
    expect(provider.calls).toBe(0);
  });
});
