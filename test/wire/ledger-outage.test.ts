import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC, type MetricName } from '../../functions/core/observability/metric-names';
import { internalErrorResponse } from '../../local/aws/aws-error-shapes';
import type { FaultDecider } from '../../local/aws/wire-fault-proxy';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, failedIds, type SenderHarness } from '../support/sender-harness';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-event';
import { startWireRig, type WireRig } from './wire-harness';

const db = useTestLedger();
let rig: WireRig;
// A rig per test: its DynamoDB client starts with the SDK's full retry quota, which an outage drains.
beforeEach(async () => {
  rig = await startWireRig(db);
});
afterEach(async () => rig?.stop());

const CLASSES = ['marketing', 'transactional', 'otp'] as const;
type ClassName = (typeof CLASSES)[number];

/** Every counted kind of "an earlier attempt may have sent it". */
const AMBIGUITY_METRICS: readonly MetricName[] = [
  METRIC.AmbiguousOutcome,
  METRIC.ResentAfterAmbiguity,
  METRIC.GaveUpAfterAmbiguity,
  METRIC.SentByEvidence,
];

/** One message of `messageClass`, its key and body. */
function message(name: string, messageClass: ClassName) {
  const eventId = `evt-outage-${name}-${messageClass}`;
  return {
    key: idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' }),
    body: JSON.stringify(loginCodeEvent({ eventId, messageClass })),
  };
}

/**
 * The story of the issue, on the wire: the claim's PutItem executes and its answer is lost; every
 * further DynamoDB request of the invocation fails with a 500 before executing (the SDK retries
 * each one as against AWS). When the invocation has ended, the ledger is back.
 */
async function invokeThroughOutage(sender: SenderHarness, body: string): Promise<void> {
  let claimLost = false;
  rig.dynamoProxy.setDecider((r) => {
    if (!claimLost && r.ledgerWrite === 'claim') {
      claimLost = true;
      return { kind: 'lose-response' };
    }
    return claimLost ? { kind: 'error-before', response: internalErrorResponse('dynamodb') } : undefined;
  });
  const first = sqsRecord(body);
  expect(failedIds(await sender.invoke(first))).toEqual([first.messageId]);
  rig.dynamoProxy.setDecider(() => undefined);
  // The SDK's retries of the claim and of its release, all refused.
  expect(rig.dynamoProxy.requests.filter((r) => r.fault === 'error-before').length).toBeGreaterThanOrEqual(8);
}

/** SQS redelivers after the visibility timeout, which is longer than the claim timeout. */
const redelivery = (body: string) => sqsRecord(body, undefined, { receiveCount: 2 });

function expectNoAmbiguity(...senders: SenderHarness[]): void {
  for (const name of AMBIGUITY_METRICS) {
    expect(senders.reduce((sum, s) => sum + s.metrics.get(name), 0), name).toBe(0);
  }
}

describe('"not sent" outlives a ledger outage', () => {
  it.each(CLASSES)('%s: claim answer lost, ledger down until the invocation ends -> next receive sends once, no ambiguity', async (messageClass) => {
    const { key, body } = message('same-env', messageClass);
    const clock = new ControlledClock();
    const sender = rig.sender(clock);

    await invokeThroughOutage(sender, body);
    // The claim executed and could not be handed back: on the ledger, an owner that died.
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING' });
    expect((await db.ledger.get(key))?.lastRelease).toBeUndefined();
    expect(sender.metrics.get(METRIC.UnsentClaimKept)).toBe(1);

    clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(failedIds(await sender.invoke(redelivery(body)))).toEqual([]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
    expect(rig.accepted(key)).toBe(1);
    expect(sender.metrics.get(METRIC.UnsentClaimReleased)).toBe(1);
    expectNoAmbiguity(sender);
  });

  it.each(CLASSES)(
    '%s: the next receive lands on a new environment after the old one ran again -> released there first, sent once, no ambiguity',
    async (messageClass) => {
      const { key, body } = message('new-env', messageClass);
      const other = message('new-env-other', messageClass);
      const clock = new ControlledClock();
      const old = rig.sender(clock);
      await invokeThroughOutage(old, body);

      // Any record brings the old environment back; it releases the kept claim before that record's work.
      expect(failedIds(await old.invoke(sqsRecord(other.body)))).toEqual([]);
      expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });

      clock.advance(CLAIM_TIMEOUT_MS + 1_000);
      const fresh = rig.sender(clock);
      expect(failedIds(await fresh.invoke(redelivery(body)))).toEqual([]);
      expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
      expect(rig.accepted(key)).toBe(1);
      expect(fresh.metrics.get(METRIC.ConcurrentClaimBackoff)).toBe(0);
      expectNoAmbiguity(old, fresh);
    },
  );

  it.each([
    ['marketing', 'UNKNOWN', 0, METRIC.GaveUpAfterAmbiguity],
    ['otp', 'SENT', 1, METRIC.ResentAfterAmbiguity],
  ] as const)(
    '%s: what is left: the old environment never runs again -> the new one sees an owner that died (%s, %i sends, %s counted)',
    async (messageClass, state, sends, counted) => {
      const { key, body } = message('env-gone', messageClass);
      const clock = new ControlledClock();
      const old = rig.sender(clock);
      await invokeThroughOutage(old, body);

      clock.advance(CLAIM_TIMEOUT_MS + 1_000);
      const fresh = rig.sender(clock);
      expect(failedIds(await fresh.invoke(redelivery(body)))).toEqual([]);
      expect(await db.ledger.get(key)).toMatchObject({ state });
      expect(rig.accepted(key)).toBe(sends);
      expect(fresh.metrics.get(counted)).toBe(1);
      // Fleet-wide, the old environment's count is what tells this apart from a real ambiguity.
      expect(old.metrics.get(METRIC.UnsentClaimKept)).toBe(1);
    },
  );

  it('the ledger still down at the next invocation start, back for its work: the delivery recognises its own unsent claim and takes it back', async () => {
    const { key, body } = message('mid-invocation', 'marketing');
    const clock = new ControlledClock();
    const sender = rig.sender(clock);
    await invokeThroughOutage(sender, body);

    // The release at the invocation start (a PutItem) fails on every SDK attempt; from the delivery's read on, the ledger answers.
    let back = false;
    const decider: FaultDecider = (r) => {
      back ||= r.ledgerWrite === 'get';
      return back ? undefined : { kind: 'error-before', response: internalErrorResponse('dynamodb') };
    };
    rig.dynamoProxy.setDecider(decider);
    // A redelivery soon after (the lease not yet out): its own environment need not back off.
    clock.advance(5_000);
    expect(failedIds(await sender.invoke(redelivery(body)))).toEqual([]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
    expect(rig.accepted(key)).toBe(1);
    expect(sender.metrics.get(METRIC.UnsentClaimReleased)).toBe(1);
    expect(sender.metrics.get(METRIC.ConcurrentClaimBackoff)).toBe(0);
    expectNoAmbiguity(sender);
  });

  it('an outage shorter than the invocation\'s time left: the invocation waits, releases the claim itself, and any environment then sends once', async () => {
    const { key, body } = message('waits', 'marketing');
    const clock = new ControlledClock();
    const sender = rig.sender(clock, undefined, undefined, { waitForLedgerBeforeReturning: true });
    const outageEndsAt = Date.now() + 2_000;
    let claimLost = false;
    rig.dynamoProxy.setDecider((r) => {
      if (Date.now() >= outageEndsAt) return undefined;
      if (!claimLost && r.ledgerWrite === 'claim') {
        claimLost = true;
        return { kind: 'lose-response' };
      }
      return claimLost ? { kind: 'reset-before' } : undefined;
    });
    const first = sqsRecord(body);
    // Time left for one more round of SDK attempts after the outage (4 x 1.5 s + backoff) and the pause before it.
    const deadline = Date.now() + 14_000;
    const answer = await sender.handler(sqsEvent(first), { ...lambdaContext(), getRemainingTimeInMillis: () => deadline - Date.now() });
    expect(failedIds(answer)).toEqual([first.messageId]);
    expect(Date.now()).toBeGreaterThanOrEqual(outageEndsAt);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });
    expect(sender.metrics.get(METRIC.UnsentClaimReleased)).toBe(1);

    clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    const fresh = rig.sender(clock);
    expect(failedIds(await fresh.invoke(redelivery(body)))).toEqual([]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
    expect(rig.accepted(key)).toBe(1);
    expectNoAmbiguity(sender, fresh);
  });

  it('a SENT outcome lost to the outage is written later: the next receive finds it SENT and an otp code is not resent', async () => {
    const { key, body } = message('outcome', 'otp');
    const clock = new ControlledClock();
    const sender = rig.sender(clock);
    // The claim and the send go through; from the outcome write on, the ledger is down until the invocation ends.
    let down = false;
    rig.dynamoProxy.setDecider((r) => {
      down ||= r.ledgerWrite === 'complete';
      return down ? { kind: 'error-before', response: internalErrorResponse('dynamodb') } : undefined;
    });
    const first = sqsRecord(body);
    expect(failedIds(await sender.invoke(first))).toEqual([first.messageId]);
    rig.dynamoProxy.setDecider(() => undefined);
    expect(rig.accepted(key)).toBe(1);
    expect(sender.metrics.get(METRIC.OutcomeKept)).toBe(1);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING' });

    clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(failedIds(await sender.invoke(redelivery(body)))).toEqual([]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
    expect(rig.accepted(key)).toBe(1);
    expect(sender.metrics.get(METRIC.OutcomeRecordedLater)).toBe(1);
    expect(sender.metrics.get(METRIC.DuplicateSuppressed)).toBe(1);
    expectNoAmbiguity(sender);
  });
});
