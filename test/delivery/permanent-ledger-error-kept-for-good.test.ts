import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import type { Claim } from '../../functions/core/ledger/ledger-record';
import { silentLog } from '../../functions/core/observability/log-port';
import { METRIC } from '../../functions/core/observability/metric-names';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { Release, SendLedger } from '../../functions/core/ledger/send-ledger';
import { deliver, FRESH_CLAIM } from '../../functions/delivery/deliver-message';
import { KeptLedgerWrites, type KeptLedgerWritesContext } from '../../functions/delivery/kept-ledger-writes';
import { plansOf } from '../reclaimer/reclaimer-harness';
import { ControlledClock } from '../support/controlled-clock';
import { testDeliveryContext } from '../support/delivery-context';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';

const db = useTestLedger();

/** An error as the DynamoDB client throws it: a name, the fault side and the HTTP status. */
function sdkError(name: string, httpStatusCode: number | undefined, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`${name}: as the service said`), { name, ...(httpStatusCode === undefined ? {} : { $metadata: { httpStatusCode } }), ...extra });
}
/** What DynamoDB answers an item over 400 KB: a retry cannot fix it. */
const itemTooLarge = () => sdkError('ValidationException', 400, { $fault: 'client', message: 'Item size has exceeded the maximum allowed size' });

const release: Release = { reason: 'transient', detail: 'LedgerError: InternalServerError', lastAmbiguousAt: undefined };
const claim = (n: number): Claim => ({ key: `key-${n}`, ownerToken: `owner-${n}`, claimVersion: 1 });
const held = (n: number) => ({ kind: 'release', claim: claim(n), release, dimensions: { channel: 'sms', messageClass: 'otp' } }) as const;

function keptContext(answer: (c: Claim) => boolean | Error) {
  const calls: string[] = [];
  const metrics = new InMemoryMetrics();
  const reply = async (c: Claim) => {
    calls.push(c.key);
    const a = answer(c);
    if (a instanceof Error) throw a;
    return a;
  };
  const ctx: KeptLedgerWritesContext = { ledger: { release: reply, complete: reply, releaseUnconfirmed: async () => true }, clock: () => 1, metrics, log: silentLog, concurrency: 2 };
  return { ctx, calls, metrics };
}

/** The real ledger with `complete` failing with `error` every time. */
function ledgerFailingComplete(error: () => Error): SendLedger {
  return new Proxy(db.ledger as SendLedger, {
    get(target, property, receiver) {
      if (property === 'complete') return async () => Promise.reject(error());
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const sentProvider: DeliveryProvider = { send: async (): Promise<DeliveryOutcome> => ({ kind: 'sent', providerMessageId: 'msg-1' }) };

/**
 * Review defect 2: every ledger error was kept as if the ledger were down, and `writeAll` made every later kept write
 * wait behind the oldest: the release of an oversized claim (an item over 400 KB, a ValidationException no retry
 * fixes) could never succeed, so every later invocation of that environment retried it until its deadline (a healthy
 * record took 3.1 s with 12 s left). Only what a retry can fix is kept; the rest is counted and dropped with its reason.
 */
describe('a permanent ledger error kept as if the ledger were down (review defect 2)', () => {
  it('a kept write the ledger refuses for good is dropped and counted, and the writes behind it go at once', async () => {
    const kept = new KeptLedgerWrites();
    for (const n of [1, 2, 3]) kept.keep(held(n));
    const { ctx, metrics } = keptContext((c) => (c.key === 'key-1' ? itemTooLarge() : true));
    expect(await kept.writeAll(ctx)).toMatchObject({ written: 2, kept: 0 });
    expect(kept.size).toBe(0);
    expect(metrics.get(METRIC.KeptLedgerWriteDropped)).toBe(1);
    expect(metrics.byDimensions.get(`${METRIC.KeptLedgerWriteDropped}|sms|otp`)).toBe(1);
  });

  it('an outcome write refused for good is not kept: counted with its reason, and nothing is left to block the environment', async () => {
    const clock = new ControlledClock();
    const [plan] = plansOf(loginCodeEvent({ eventId: 'evt-kept-for-good' }));
    const kept = new KeptLedgerWrites();
    const metrics = new InMemoryMetrics();
    const ctx = testDeliveryContext(ledgerFailingComplete(itemTooLarge), sentProvider, clock, { keptWrites: kept, metrics });
    expect(await deliver(plan!, FRESH_CLAIM, ctx)).toMatchObject({ settled: false, why: 'ledger-error' });
    expect(kept.size).toBe(0);
    expect(metrics.get(METRIC.OutcomeKept)).toBe(0);
    expect(metrics.get(METRIC.KeptLedgerWriteDropped)).toBe(1);
  });

  it.each([
    ['a 500 (InternalServerError)', () => sdkError('InternalServerError', 500)],
    ['a 503 without a modeled name', () => sdkError('ServiceUnavailable', 503)],
    ['throttling (ProvisionedThroughputExceededException, a 400)', () => sdkError('ProvisionedThroughputExceededException', 400)],
    ['throttling (ThrottlingException, a 400)', () => sdkError('ThrottlingException', 400)],
    ['a refused connection', () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['a reset connection', () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    ['a request timeout', () => Object.assign(new Error('Connection timed out after 1500 ms'), { name: 'TimeoutError' })],
    ['an error the SDK marks retryable', () => sdkError('TransactionConflictException', 400, { $retryable: {} })],
  ])('what a retry can fix is still kept: %s', async (_what, error) => {
    const clock = new ControlledClock();
    const [plan] = plansOf(loginCodeEvent({ eventId: `evt-kept-retryable-${_what}` }));
    const kept = new KeptLedgerWrites();
    const metrics = new InMemoryMetrics();
    const ctx = testDeliveryContext(ledgerFailingComplete(error), sentProvider, clock, { keptWrites: kept, metrics });
    expect(await deliver(plan!, FRESH_CLAIM, ctx)).toMatchObject({ settled: false, why: 'ledger-error' });
    expect(kept.size).toBe(1);
    expect(metrics.get(METRIC.OutcomeKept)).toBe(1);
  });
});

describe('one kept write that keeps failing does not hold the others back', () => {
  it('the oldest, failing again in a way a retry can fix, goes to the back: the next round tries another first', async () => {
    const kept = new KeptLedgerWrites();
    for (const n of [1, 2]) kept.keep(held(n));
    const down = () => Object.assign(new Error('still down'), { name: 'InternalServerError', $metadata: { httpStatusCode: 500 } });
    const { ctx, calls } = keptContext((c) => (c.key === 'key-1' ? down() : true));
    expect(await kept.writeAll(ctx)).toMatchObject({ written: 0, kept: 2 });
    expect(await kept.writeAll(ctx)).toMatchObject({ written: 1, kept: 1 });
    expect(calls).toEqual(['key-1', 'key-2', 'key-1']);
    expect(kept.holdsUnsent(claim(1))).toBe(true);
  });
});
