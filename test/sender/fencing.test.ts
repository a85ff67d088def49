import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { newClaimRow, ttlSeconds } from '../../functions/core/ledger/ledger-decision';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, RETENTION_MS, SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

/** Lets the first call hang until the test releases it; later calls go straight through. */
class SlowFirstCall implements DeliveryProvider {
  private release: ((outcome: DeliveryOutcome) => void) | undefined;
  readonly started: Promise<void>;
  private markStarted!: () => void;
  calls = 0;

  constructor(private readonly inner: DeliveryProvider) {
    this.started = new Promise((resolve) => {
      this.markStarted = resolve;
    });
  }

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    this.calls += 1;
    if (this.calls > 1) return this.inner.send(request, signal);
    const outcome = await this.inner.send(request, signal);
    this.markStarted();
    return new Promise((resolve) => {
      this.release = () => resolve(outcome);
    });
  }

  finish(): void {
    this.release?.({ kind: 'sent', providerMessageId: 'never-used' });
  }
}

describe('fencing: a slow worker whose claim was taken over', () => {
  it('cannot overwrite the newer outcome', async () => {
    const event = loginCodeEvent({ eventId: 'evt-slow-worker', messageClass: 'otp' });
    const key = idempotencyKey({ eventId: event.eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    let slow: SlowFirstCall | undefined;
    const harness = new SenderHarness({
      ledger: db.ledger,
      wrapProvider: (outbox) => (slow = new SlowFirstCall(outbox)),
    });
    const body = JSON.stringify(event);

    const slowInvocation = harness.invoke(sqsRecord(body));
    await slow!.started;

    // The slow worker's lease runs out (its process looks dead); a redelivery takes over and resends.
    harness.clock.advance(CLAIM_TIMEOUT_MS + 1);
    expect(failedIds(await harness.invoke(sqsRecord(body)))).toEqual([]);
    const winner = await db.ledger.get(key);
    expect(winner).toMatchObject({ state: 'SENT', claimVersion: 2 });

    // The slow worker finally hears back and tries to record its outcome: rejected by the fence.
    slow!.finish();
    const late = await slowInvocation;
    expect(late.batchItemFailures).toHaveLength(1);
    expect(harness.metrics.get(METRIC.ClaimLost)).toBe(1);
    expect(await db.ledger.get(key)).toEqual(winner);
  });

  it('a stale takeover is fenced on the claim version: of two racing takeovers only one wins', async () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    const timing = { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RETENTION_MS };
    const key = idempotencyKey({ eventId: 'evt-race', recipientId: 'r', channel: 'email', templateId: 't' });
    const row = newClaimRow({ subject: { key, eventId: 'evt-race', recipientId: 'r', channel: 'email', templateId: 't', messageClass: 'otp', occurredAt: new Date(now).toISOString() }, ownerToken: 'dead-owner', nowMs: now, timing });
    expect(await db.ledger.claim(row, now)).toEqual({ claimed: true });
    const later = now + CLAIM_TIMEOUT_MS + 1;
    const fields = (owner: string) => ({
      expectedClaimVersion: 1,
      claimVersion: 2,
      ownerToken: owner,
      claimedAt: later,
      leaseExpiresAt: later + CLAIM_TIMEOUT_MS,
      attempts: 2,
      lastAmbiguousAt: now,
      expiresAt: ttlSeconds(later, timing),
      pendingShard: undefined,
    });
    const results = await Promise.all([db.ledger.takeOver(key, fields('a')), db.ledger.takeOver(key, fields('b'))]);
    expect(results.filter(Boolean)).toHaveLength(1);
    // The loser's claim cannot record an outcome.
    const loser = results[0] ? 'b' : 'a';
    expect(await db.ledger.complete({ key, ownerToken: loser, claimVersion: 2 }, { state: 'SENT', providerMessageId: 'x' }, later, 1)).toBe(false);
    expect(await db.ledger.complete({ key, ownerToken: 'dead-owner', claimVersion: 1 }, { state: 'FAILED', reason: 'x' }, later, 1)).toBe(false);
  });

  it('a retried claim whose first response was lost recognises its own row', async () => {
    const now = Date.parse('2026-11-29T12:00:00Z');
    const key = idempotencyKey({ eventId: 'evt-retried-claim', recipientId: 'r', channel: 'sms', templateId: 't' });
    const row = newClaimRow({ subject: { key, eventId: 'evt-retried-claim', recipientId: 'r', channel: 'sms', templateId: 't', messageClass: 'otp', occurredAt: 'x' }, ownerToken: 'owner-1', nowMs: now, timing: { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RETENTION_MS } });
    expect(await db.ledger.claim(row, now)).toEqual({ claimed: true });
    expect(await db.ledger.claim(row, now)).toEqual({ claimed: true });
    const other = await db.ledger.claim({ ...row, ownerToken: 'owner-2' }, now);
    expect(other).toMatchObject({ claimed: false, existing: { ownerToken: 'owner-1' } });
  });

  it('a SENT row past its TTL but not yet deleted neither counts as done nor blocks the send', async () => {
    const event = loginCodeEvent({ eventId: 'evt-expired-row', messageClass: 'otp' });
    const harness = new SenderHarness({ ledger: db.ledger });
    const key = idempotencyKey({ eventId: event.eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const past = harness.clock.now() - RETENTION_MS - 60_000;
    const oldRow = newClaimRow({ subject: { key, eventId: event.eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code', messageClass: 'otp', occurredAt: event.occurredAt }, ownerToken: 'old-owner', nowMs: past, timing: { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RETENTION_MS } });
    await db.ledger.claim(oldRow, past);
    await db.ledger.complete({ key, ownerToken: 'old-owner', claimVersion: 1 }, { state: 'SENT', providerMessageId: 'old' }, past, oldRow.expiresAt);

    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
    expect((await harness.callsPerKey()).get(key)).toBe(1);
    expect(harness.metrics.get(METRIC.DuplicateSuppressed)).toBe(0);
    expect((await db.ledger.get(key))?.expiresAt).toBeGreaterThan(harness.clock.now() / 1000);
  });
});
