import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { claimOf, newClaimRow, takeoverFields } from '../../functions/core/ledger/ledger-decision';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

/** `transactional`: look up, wait up to 300 s for evidence, then resend. */
const EVIDENCE_WAIT_MS = 300_000;

/**
 * A provider that cannot be asked about a key (like SES v2 and SNS): the first call reaches the
 * outbox but its answer is lost (ambiguous), the second is throttled (certainly not sent), later
 * calls go through.
 */
class LostAnswerThenThrottled implements DeliveryProvider {
  calls = 0;
  constructor(private readonly outbox: DeliveryProvider) {}

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    this.calls += 1;
    if (this.calls === 2) return { kind: 'transient', cause: 'throttled', reason: 'ThrottlingException: Rate exceeded' };
    const outcome = await this.outbox.send(request, signal);
    return this.calls === 1 ? { kind: 'ambiguous', reason: 'TimeoutError: socket hang up' } : outcome;
  }
}

describe('an earlier ambiguity survives a later transient release', () => {
  it('late delivery evidence for the first attempt still settles the message: no resend', async () => {
    const eventId = 'evt-ambiguity-across-transient';
    const body = JSON.stringify(loginCodeEvent({ eventId, messageClass: 'transactional' }));
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    let provider: LostAnswerThenThrottled | undefined;
    const harness = new SenderHarness({ ledger: db.ledger, wrapProvider: (outbox) => (provider = new LostAnswerThenThrottled(outbox)) });
    const firstAttemptAt = harness.clock.now();

    // 1. The answer is lost: the message may have gone out. Nothing to look up, so it waits for evidence.
    expect(failedIds(await harness.invoke(sqsRecord(body)))).toHaveLength(1);
    expect(await db.ledger.get(key)).toMatchObject({ lastRelease: 'ambiguous', lastAmbiguousAt: firstAttemptAt });

    // 2. The wait is over without evidence: resent per policy, but throttled this time.
    harness.clock.advance(EVIDENCE_WAIT_MS);
    expect(failedIds(await harness.invoke(sqsRecord(body)))).toHaveLength(1);
    expect(provider!.calls).toBe(2);
    // The throttled call proves nothing about the first one: its ambiguity stays on the row.
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient', lastAmbiguousAt: firstAttemptAt });

    // Evidence of the first attempt's delivery arrives late.
    expect(
      await db.ledger.recordDeliveryStatus(key, { status: 'SUCCESS', at: firstAttemptAt + 5_000, source: 'sns-sms' }, harness.clock.now()),
    ).toBe('recorded');

    // 3. The next delivery sees the evidence and records SENT without calling the provider again.
    harness.clock.advance(1_000);
    expect(failedIds(await harness.invoke(sqsRecord(body)))).toEqual([]);
    expect(provider!.calls).toBe(2);
    expect((await harness.callsPerKey()).get(key)).toBe(1);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
    expect(harness.metrics.get(METRIC.SentByEvidence)).toBe(1);
  });

  it('the ledger keeps the earlier ambiguity when a release carries none (a release after a ledger error)', async () => {
    const t0 = Date.parse('2026-11-29T12:00:00.000Z');
    const timing = { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 };
    const eventId = 'evt-release-keeps-ambiguity';
    const key = idempotencyKey({ eventId, recipientId: 'r', channel: 'sms', templateId: 't' });
    const row = newClaimRow({ subject: { key, eventId, recipientId: 'r', channel: 'sms', templateId: 't', messageClass: 'transactional', occurredAt: 'x' }, ownerToken: 'owner-1', nowMs: t0, timing });
    expect(await db.ledger.claim(row, t0)).toEqual({ claimed: true });
    expect(await db.ledger.release(claimOf(row), { reason: 'ambiguous', detail: 'timeout', lastAmbiguousAt: t0 }, t0 + 1)).toBe(true);
    const fields = takeoverFields({ row: { ...row, leaseExpiresAt: t0 + 1 }, ownerToken: 'owner-2', nowMs: t0 + 2, timing, lastAmbiguousAt: undefined });
    expect(await db.ledger.takeOver(key, fields)).toBe(true);
    const second = { key, ownerToken: 'owner-2', claimVersion: fields.claimVersion };
    expect(await db.ledger.release(second, { reason: 'transient', detail: 'ledger error', lastAmbiguousAt: undefined }, t0 + 3)).toBe(true);
    expect(await db.ledger.get(key)).toMatchObject({ lastRelease: 'transient', lastAmbiguousAt: t0 });
  });

  it('a transient release writes no ambiguity where there was none', async () => {
    const eventId = 'evt-transient-without-ambiguity';
    const body = JSON.stringify(loginCodeEvent({ eventId, messageClass: 'transactional' }));
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const harness = new SenderHarness({
      ledger: db.ledger,
      wrapProvider: () => ({ send: async () => ({ kind: 'transient', cause: 'throttled', reason: 'ThrottlingException' }) }),
    });
    expect(failedIds(await harness.invoke(sqsRecord(body)))).toHaveLength(1);
    const row = await db.ledger.get(key);
    expect(row).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });
    expect(row?.lastAmbiguousAt).toBeUndefined();
  });
});
