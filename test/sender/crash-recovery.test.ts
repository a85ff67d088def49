import { describe, expect, it } from 'vitest';
import type { DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { SendLedger } from '../../functions/core/ledger/send-ledger';
import { loginCodeEvent } from '../support/events';
import { crashAfterFirst, invokeOrKill, type CrashMode } from '../support/faults';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

type CrashPoint = 'after-claim' | 'after-send-before-mark' | 'after-mark-before-ack';
type ClassName = 'otp' | 'transactional' | 'marketing';

/**
 * Provider calls expected in total after the crash and redeliveries, and the final state.
 * Only `otp` (policy `resend`) may call twice, and only after an ambiguous outcome.
 */
const EXPECTED: Record<CrashPoint, Record<ClassName, { calls: number; state: string }>> = {
  // A killed worker never reached the provider, but nobody can know that: class policy decides.
  'after-claim': {
    otp: { calls: 1, state: 'SENT' },
    transactional: { calls: 1, state: 'SENT' }, // look-up: no evidence of a send, so it sends
    marketing: { calls: 0, state: 'UNKNOWN' }, // give-up: a counted possible miss
  },
  'after-send-before-mark': {
    otp: { calls: 2, state: 'SENT' }, // resend after ambiguity: the one allowed, counted duplicate
    transactional: { calls: 1, state: 'SENT' }, // look-up finds our key at the provider
    marketing: { calls: 1, state: 'UNKNOWN' },
  },
  'after-mark-before-ack': {
    otp: { calls: 1, state: 'SENT' },
    transactional: { calls: 1, state: 'SENT' },
    marketing: { calls: 1, state: 'SENT' },
  },
};

/**
 * A claim request that throws after it was written (a lost response) leaves a live process that
 * knows it never called the provider: it hands the claim back, so every class simply sends once.
 */
const THROWN_AFTER_CLAIM = { calls: 1, state: 'SENT' } as const;

const cases = (['after-claim', 'after-send-before-mark', 'after-mark-before-ack'] as const).flatMap((point) =>
  (['throw', 'hang'] as const).flatMap((mode) =>
    (['otp', 'transactional', 'marketing'] as const).map((messageClass) => ({ point, mode, messageClass })),
  ),
);

describe('a crash at each step, followed by redelivery', () => {
  it.each(cases)('$point ($mode) for class $messageClass', async ({ point, mode, messageClass }) => {
    const eventId = `evt-crash-${point}-${mode}-${messageClass}`;
    const event = loginCodeEvent({ eventId, messageClass });
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const body = JSON.stringify(event);

    const ledger: SendLedger =
      point === 'after-claim'
        ? crashAfterFirst(db.ledger, 'claim', mode)
        : point === 'after-mark-before-ack'
          ? crashAfterFirst(db.ledger, 'complete', mode)
          : db.ledger;
    const harness = new SenderHarness({
      ledger,
      wrapProvider:
        point === 'after-send-before-mark' ? (p: DeliveryProvider) => crashAfterFirst(p, 'send', mode) : undefined,
    });

    // A thrown crash may still settle the message in this invocation (an ambiguous provider
    // answer resolved by class policy at once); a hang never answers.
    const first = await invokeOrKill(harness.invoke(sqsRecord(body)));
    if (mode === 'hang') expect(first).toBe('killed');

    // SQS redelivers (new messageId each time); time passes between deliveries.
    let settled = false;
    for (let delivery = 0; delivery < 5 && !settled; delivery += 1) {
      harness.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
      settled = failedIds(await harness.invoke(sqsRecord(body))).length === 0;
    }
    expect(settled).toBe(true);

    const expected = point === 'after-claim' && mode === 'throw' ? THROWN_AFTER_CLAIM : EXPECTED[point][messageClass];
    expect((await harness.callsPerKey()).get(key) ?? 0).toBe(expected.calls);
    expect((await db.ledger.get(key))?.state).toBe(expected.state);
    // Every second provider call is a counted resend-after-ambiguity, never a silent one.
    expect(harness.metrics.get(METRIC.ResentAfterAmbiguity)).toBeGreaterThanOrEqual(expected.calls - 1);
    if (expected.state === 'UNKNOWN') expect(harness.metrics.get(METRIC.GaveUpAfterAmbiguity)).toBe(1);
    if (point === 'after-mark-before-ack') expect(harness.metrics.get(METRIC.DuplicateSuppressed)).toBe(1);
  });

  it('a redelivery before the dead claim goes stale backs off instead of sending', async () => {
    const event = loginCodeEvent({ eventId: 'evt-crash-early-redelivery', messageClass: 'otp' });
    const body = JSON.stringify(event);
    const harness = new SenderHarness({ ledger: crashAfterFirst(db.ledger, 'claim', 'hang') });
    expect(await invokeOrKill(harness.invoke(sqsRecord(body)))).toBe('killed');

    harness.clock.advance(CLAIM_TIMEOUT_MS - 1_000);
    const early = sqsRecord(body);
    expect(failedIds(await harness.invoke(early))).toEqual([early.messageId]);
    expect(harness.metrics.get(METRIC.ConcurrentClaimBackoff)).toBe(1);
    expect((await harness.outbox()).length).toBe(0);
  });
});

describe('delivery evidence settles an unknown outcome for any class', () => {
  it('an otp whose dead attempt left evidence of a send is marked SENT, not resent', async () => {
    const event = loginCodeEvent({ eventId: 'evt-otp-with-evidence', messageClass: 'otp' });
    const key = idempotencyKey({ eventId: event.eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const harness = new SenderHarness({ ledger: db.ledger });
    const { newClaimRow } = await import('../../functions/core/ledger/ledger-decision');
    const { RETENTION_MS } = await import('../support/sender-harness');
    const now = harness.clock.now();
    const row = newClaimRow({ subject: { key, eventId: event.eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code', messageClass: 'otp', occurredAt: event.occurredAt }, ownerToken: 'dead-owner', nowMs: now, timing: { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RETENTION_MS } });
    await db.ledger.claim({ ...row, deliveryStatus: 'SUCCESS', providerMessageId: 'sns-from-dead-attempt' }, now);

    harness.clock.advance(CLAIM_TIMEOUT_MS + 1);
    expect(failedIds(await harness.invoke(sqsRecord(JSON.stringify(event))))).toEqual([]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT', providerMessageId: 'sns-from-dead-attempt' });
    expect(await harness.outbox()).toEqual([]);
    expect(harness.metrics.get(METRIC.SentByEvidence)).toBe(1);
    expect(harness.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(0);
  });
});
