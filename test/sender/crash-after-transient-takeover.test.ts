import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

/**
 * The provider throttles the first call (certainly not sent); the second call reaches it and then
 * the worker dies before hearing back (its invocation never answers); later calls go through.
 * Look-ups, where the provider has them, go to the real outbox.
 */
class ThrottledThenKilledAfterSend implements DeliveryProvider {
  private calls = 0;
  private markSent!: () => void;
  /** Resolves once the second call has reached the provider. */
  readonly killedAfterSend = new Promise<void>((resolve) => {
    this.markSent = resolve;
  });
  readonly lookup?: DeliveryProvider['lookup'];

  constructor(private readonly outbox: DeliveryProvider) {
    if (outbox.lookup) this.lookup = (key) => outbox.lookup!(key);
  }

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    this.calls += 1;
    if (this.calls === 1) return { kind: 'transient', cause: 'throttled', reason: 'ThrottlingException: Rate exceeded' };
    const outcome = await this.outbox.send(request, signal);
    if (this.calls > 2) return outcome;
    this.markSent();
    return new Promise<never>(() => undefined);
  }
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${ms}ms for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

type ClassName = 'otp' | 'transactional' | 'marketing';

/**
 * What the redelivery after the crash must do. The dead attempt may have sent, so its class
 * policy applies; if the takeover had kept the first attempt's `lastRelease: transient`, the row
 * would look certainly-unsent and every class would simply send again.
 */
const EXPECTED: Record<ClassName, { calls: number; state: string; metric: (typeof METRIC)[keyof typeof METRIC] }> = {
  otp: { calls: 2, state: 'SENT', metric: METRIC.ResentAfterAmbiguity }, // resend, counted as a possible duplicate
  transactional: { calls: 1, state: 'SENT', metric: METRIC.SentByEvidence }, // look-up finds the dead attempt's send
  marketing: { calls: 1, state: 'UNKNOWN', metric: METRIC.GaveUpAfterAmbiguity }, // never a second marketing message
};

describe('transient failure, then takeover, then a crash after the send, then redelivery', () => {
  it.each(['otp', 'transactional', 'marketing'] as const)('class %s: the takeover forgets the transient release', async (messageClass) => {
    const eventId = `evt-transient-takeover-crash-${messageClass}`;
    const body = JSON.stringify(loginCodeEvent({ eventId, messageClass }));
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    let provider: ThrottledThenKilledAfterSend | undefined;
    const harness = new SenderHarness({ ledger: db.ledger, wrapProvider: (outbox) => (provider = new ThrottledThenKilledAfterSend(outbox)) });

    // 1. Throttled: the claim is handed back as certainly not sent.
    const first = sqsRecord(body);
    expect(failedIds(await harness.invoke(first))).toEqual([first.messageId]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient', claimVersion: 1 });

    // 2. Redelivered at once: taken over, sent, and the worker is killed before it records anything.
    // The killed invocation never answers; 30 s on, instrumentHandler's early timeout rejects it, by then in
    // whatever test file shares this worker (mutation runs use isolate: false). Nobody is there to hear it.
    harness.invoke(sqsRecord(body)).catch(() => undefined);
    await within(provider!.killedAfterSend, 5_000, 'the second call to reach the provider');
    const orphan = await db.ledger.get(key);
    expect(orphan).toMatchObject({ state: 'PENDING', claimVersion: 2 });
    expect(orphan?.lastRelease).toBeUndefined();
    expect((await harness.callsPerKey()).get(key)).toBe(1);

    // 3. Redelivered after the dead claim went stale.
    harness.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(failedIds(await harness.invoke(sqsRecord(body)))).toEqual([]);

    const expected = EXPECTED[messageClass];
    expect((await harness.callsPerKey()).get(key)).toBe(expected.calls);
    expect((await db.ledger.get(key))?.state).toBe(expected.state);
    expect(harness.metrics.get(expected.metric)).toBe(1);
  });
});
