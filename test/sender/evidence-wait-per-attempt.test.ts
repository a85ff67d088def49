import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { newClaimRow } from '../../functions/core/ledger/ledger-decision';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, RETENTION_MS, SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

/** `transactional`: look up, wait up to 300 s for evidence, then resend. */
const EVIDENCE_WAIT_MS = 300_000;

/** A provider that cannot be asked about a key; each call reaches the outbox, and the first `lost` answers are lost. */
class LosesAnswers implements DeliveryProvider {
  calls = 0;
  constructor(
    private readonly outbox: DeliveryProvider,
    private readonly lost: number,
  ) {}

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    this.calls += 1;
    const outcome = await this.outbox.send(request, signal);
    return this.calls <= this.lost ? { kind: 'ambiguous', reason: 'TimeoutError: socket hang up' } : outcome;
  }
}

function setUp(eventId: string, lostAnswers: number) {
  let provider: LosesAnswers | undefined;
  const harness = new SenderHarness({ ledger: db.ledger, wrapProvider: (outbox) => (provider = new LosesAnswers(outbox, lostAnswers)) });
  const body = JSON.stringify(loginCodeEvent({ eventId, messageClass: 'transactional' }));
  const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
  return {
    harness,
    key,
    deliver: async () => failedIds(await harness.invoke(sqsRecord(body))).length === 0,
    calls: () => provider!.calls,
  };
}

describe('a lookup-class message is never resent sooner than the evidence wait after its latest ambiguous attempt', () => {
  it('each ambiguous attempt starts its own wait', async () => {
    const { harness, key, deliver, calls } = setUp('evt-wait-per-attempt', 2);
    const firstAt = harness.clock.now();

    expect(await deliver()).toBe(false);
    expect(await db.ledger.get(key)).toMatchObject({ lastRelease: 'ambiguous', lastAmbiguousAt: firstAt });

    harness.clock.advance(EVIDENCE_WAIT_MS - 1);
    expect(await deliver()).toBe(false);
    expect(calls()).toBe(1);
    expect(harness.metrics.get(METRIC.SettledByWait)).toBe(0);

    // The wait is over: resent (a counted possible duplicate), and this answer is lost too.
    harness.clock.advance(1);
    const secondAt = harness.clock.now();
    expect(await deliver()).toBe(false);
    expect(calls()).toBe(2);
    expect(await db.ledger.get(key)).toMatchObject({ lastRelease: 'ambiguous', lastAmbiguousAt: secondAt });

    // The second attempt gets a full wait of its own, though the first began long ago.
    harness.clock.advance(EVIDENCE_WAIT_MS - 1);
    expect(await deliver()).toBe(false);
    expect(calls()).toBe(2);

    harness.clock.advance(1);
    expect(await deliver()).toBe(true);
    expect(calls()).toBe(3);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
    expect(harness.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(2);
    // Both resends were decided by the wait running out, no evidence having come: the gap, counted.
    expect(harness.metrics.get(METRIC.SettledByWait)).toBe(2);
  });

  it("a dead owner's attempt is waited for from the end of its lease, not from its claim", async () => {
    const { harness, key, deliver, calls } = setUp('evt-wait-dead-owner', 0);
    const claimedAt = harness.clock.now();
    const event = loginCodeEvent({ eventId: 'evt-wait-dead-owner', messageClass: 'transactional' });
    const dead = newClaimRow({ subject: { key, eventId: event.eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code', messageClass: 'transactional', occurredAt: event.occurredAt }, ownerToken: 'dead-owner', nowMs: claimedAt, timing: { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RETENTION_MS } });
    expect(await db.ledger.claim(dead, claimedAt)).toEqual({ claimed: true });

    // It could have sent until its lease ended: the wait runs from there.
    harness.clock.advance(CLAIM_TIMEOUT_MS + EVIDENCE_WAIT_MS - 1);
    expect(await deliver()).toBe(false);
    expect(calls()).toBe(0);
    expect(await db.ledger.get(key)).toMatchObject({ lastRelease: 'ambiguous', lastAmbiguousAt: dead.leaseExpiresAt });

    harness.clock.advance(1);
    expect(await deliver()).toBe(true);
    expect(calls()).toBe(1);
    expect(harness.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(1);
  });
});
