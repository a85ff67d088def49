import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import { LEDGER_MAX_ATTEMPTS, LEDGER_REQUEST_TIMEOUT_MS } from '../../functions/adapters/ledger-client-config';
import { awsErrorResponse, internalErrorResponse } from '../../local/aws/aws-error-shapes';
import { SNS_PUBLISH_THROTTLED } from '../../local/aws/documented-throttling';
import type { WireFault } from '../../local/aws/wire-fault-proxy';
import type { LedgerWrite } from '../../local/aws/wire-operation';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds } from '../support/sender-harness';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-event';
import { faultFirst, startWireRig, WIRE_SEND_TIMEOUT_MS, type WireRig } from './wire-harness';

const db = useTestLedger();
let rig: WireRig;
beforeAll(async () => {
  rig = await startWireRig(db);
});
afterAll(async () => rig?.stop());

/** Each way a DynamoDB request fails on the wire, the SDK retrying it as it does against AWS. */
const LEDGER_FAULTS: Readonly<Record<string, WireFault>> = {
  'response lost after the write': { kind: 'lose-response' },
  'response delayed past the client timeout': { kind: 'delay-response', ms: LEDGER_REQUEST_TIMEOUT_MS + 700 },
  'connection reset before the write': { kind: 'reset-before' },
  '500 before the write': { kind: 'error-before', response: internalErrorResponse('dynamodb') },
};

const WRITES: readonly LedgerWrite[] = ['claim', 'takeover', 'complete', 'release'];
const throttle = () => ({ kind: 'error-before', response: awsErrorResponse('sns', SNS_PUBLISH_THROTTLED.status, SNS_PUBLISH_THROTTLED.code, SNS_PUBLISH_THROTTLED.message) }) as const;
const isPublish = (r: { operation: string }) => r.operation === 'Publish';

const cases = WRITES.flatMap((write) => Object.keys(LEDGER_FAULTS).map((fault) => ({ write, fault })));

describe('every ledger write is safe to retry after its own success, on the wire', () => {
  it.each(cases)('$write: $fault -> sent once, no back-off from its own claim, no invented ambiguity', async ({ write, fault }) => {
    // Marketing gives up on any ambiguity: an invented one would leave it UNKNOWN and unsent.
    const eventId = `evt-wire-${write}-${fault.replace(/\W+/g, '-')}`;
    const event = loginCodeEvent({ eventId, messageClass: 'marketing' });
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const body = JSON.stringify(event);
    const sender = rig.sender();

    // takeover and release need a released claim first: a throttled (certainly refused) send.
    if (write === 'takeover' || write === 'release') {
      rig.snsProxy.setDecider(faultFirst(isPublish, throttle()));
      rig.dynamoProxy.setDecider(faultFirst((r) => r.ledgerWrite === write, LEDGER_FAULTS[fault]!));
      const first = sqsRecord(body);
      expect(failedIds(await sender.invoke(first))).toEqual([first.messageId]);
      expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });
    } else {
      rig.dynamoProxy.setDecider(faultFirst((r) => r.ledgerWrite === write, LEDGER_FAULTS[fault]!));
    }

    // Whatever happened, the next delivery sends it, once.
    let settled = false;
    for (let delivery = 0; delivery < 3 && !settled; delivery += 1) {
      settled = failedIds(await sender.invoke(sqsRecord(body))).length === 0;
    }
    expect(settled).toBe(true);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
    expect(rig.accepted(key)).toBe(1);
    expect(rig.dynamoProxy.requests.some((r) => r.ledgerWrite === write && r.fault !== 'none')).toBe(true);
    expect(sender.metrics.get(METRIC.ConcurrentClaimBackoff)).toBe(0);
    expect(sender.metrics.get(METRIC.AmbiguousOutcome)).toBe(0);
    expect(sender.metrics.get(METRIC.GaveUpAfterAmbiguity)).toBe(0);
    expect(sender.metrics.get(METRIC.ClaimLost)).toBe(0);
  });

  it('a claim whose every SDK attempt lost its response is handed back, so the next delivery sends at once', async () => {
    const eventId = 'evt-wire-claim-all-attempts-lost';
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const body = JSON.stringify(loginCodeEvent({ eventId, messageClass: 'marketing' }));
    const sender = rig.sender();
    rig.dynamoProxy.setDecider(faultFirst((r) => r.ledgerWrite === 'claim', { kind: 'lose-response' }, LEDGER_MAX_ATTEMPTS));

    const first = sqsRecord(body);
    expect(failedIds(await sender.invoke(first))).toEqual([first.messageId]);
    expect(sender.metrics.get(METRIC.LedgerError)).toBe(1);
    expect(sender.metrics.get(METRIC.ClaimReleasedAfterLedgerError)).toBe(1);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });

    // No wait for the claim timeout, and no "owner died" ambiguity: nothing was sent.
    expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
    expect(rig.accepted(key)).toBe(1);
    expect(sender.metrics.get(METRIC.GaveUpAfterAmbiguity)).toBe(0);
  });

  it.each(['complete', 'release'] as const)(
    'a %s whose every SDK attempt lost its response is written again, so no ambiguity is left behind',
    async (write) => {
      const eventId = `evt-wire-${write}-all-attempts-lost`;
      const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
      const body = JSON.stringify(loginCodeEvent({ eventId, messageClass: 'otp' }));
      const sender = rig.sender();
      if (write === 'release') rig.snsProxy.setDecider(faultFirst(isPublish, throttle()));
      rig.dynamoProxy.setDecider(faultFirst((r) => r.ledgerWrite === write, { kind: 'lose-response' }, LEDGER_MAX_ATTEMPTS));
      await sender.invoke(sqsRecord(body));
      expect(sender.metrics.get(METRIC.LedgerError)).toBe(0);
      expect(await db.ledger.get(key)).toMatchObject(write === 'complete' ? { state: 'SENT' } : { state: 'PENDING', lastRelease: 'transient' });
      if (write === 'release') expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
      expect(rig.accepted(key)).toBe(1);
      expect(sender.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(0);
    },
  );

  it('a late duplicate of our own claim request, executed after the outcome was written, changes nothing', async () => {
    const eventId = 'evt-wire-late-claim';
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const body = JSON.stringify(loginCodeEvent({ eventId, messageClass: 'otp' }));
    const sender = rig.sender();
    // The first attempt is held in the network; the SDK times out, retries, and the message goes out.
    const lateMs = LEDGER_REQUEST_TIMEOUT_MS + 1_500;
    rig.dynamoProxy.setDecider(faultFirst((r) => r.ledgerWrite === 'claim', { kind: 'late-request', ms: lateMs }));
    expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });

    await new Promise((resolve) => setTimeout(resolve, lateMs)); // the held PutItem now reaches DynamoDB
    expect(rig.dynamoProxy.requests.filter((r) => r.ledgerWrite === 'claim' && r.fault === 'late-request')).toHaveLength(1);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
    expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
    expect(rig.accepted(key)).toBe(1);
  });

  it('a claim that failed on every attempt but executes late is already released: nobody holds it, nothing is invented', async () => {
    const eventId = 'evt-wire-late-claim-after-error';
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const body = JSON.stringify(loginCodeEvent({ eventId, messageClass: 'marketing' }));
    const sender = rig.sender();
    // Attempt 1 is held in the network for 6 s; the SDK's retries are reset before they arrive.
    const lateMs = 6_000;
    let claims = 0;
    rig.dynamoProxy.setDecider((r) => {
      if (r.ledgerWrite !== 'claim') return undefined;
      claims += 1;
      if (claims === 1) return { kind: 'late-request', ms: lateMs };
      return claims <= LEDGER_MAX_ATTEMPTS ? { kind: 'reset-before' } : undefined;
    });
    const first = sqsRecord(body);
    const started = Date.now();
    expect(failedIds(await sender.invoke(first))).toEqual([first.messageId]);
    expect(sender.metrics.get(METRIC.ClaimReleasedAfterLedgerError)).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + lateMs + 500 - Date.now())));
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });

    // Released: the next delivery takes it over at once and sends; no back-off, no give-up.
    expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
    expect(rig.accepted(key)).toBe(1);
    expect(sender.metrics.get(METRIC.ConcurrentClaimBackoff)).toBe(0);
    expect(sender.metrics.get(METRIC.GaveUpAfterAmbiguity)).toBe(0);
  });

  it('a late duplicate of our own takeover, executed after we handed the claim back, does not hold it again', async () => {
    const eventId = 'evt-wire-late-takeover';
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const body = JSON.stringify(loginCodeEvent({ eventId, messageClass: 'marketing' }));
    const sender = rig.sender();
    rig.snsProxy.setDecider(faultFirst(isPublish, throttle(), 2));
    await sender.invoke(sqsRecord(body)); // throttled: released
    const lateMs = LEDGER_REQUEST_TIMEOUT_MS + 1_500;
    rig.dynamoProxy.setDecider(faultFirst((r) => r.ledgerWrite === 'takeover', { kind: 'late-request', ms: lateMs }));
    await sender.invoke(sqsRecord(body)); // takeover retried by the SDK, throttled again: released
    await new Promise((resolve) => setTimeout(resolve, lateMs));
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });

    // Released, so the next delivery takes it over at once: no back-off, no "owner died" ambiguity.
    expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
    expect(rig.accepted(key)).toBe(1);
    expect(sender.metrics.get(METRIC.ConcurrentClaimBackoff)).toBe(0);
    expect(sender.metrics.get(METRIC.GaveUpAfterAmbiguity)).toBe(0);
  });

  it('a delivery whose claim was slow past the point where a send could still be recorded hands the claim back unsent', async () => {
    const eventId = 'evt-wire-slow-claim-out-of-time';
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const body = JSON.stringify(loginCodeEvent({ eventId, messageClass: 'marketing' }));
    const sender = rig.sender();
    rig.dynamoProxy.setDecider(faultFirst((r) => r.ledgerWrite === 'claim', LEDGER_FAULTS['response delayed past the client timeout']!));
    // Just enough time to start (send timeout + two ledger request timeouts), not after a slow claim.
    const deadline = Date.now() + WIRE_SEND_TIMEOUT_MS + 2 * LEDGER_REQUEST_TIMEOUT_MS + 150;
    const record = sqsRecord(body);
    const answer = await sender.handler(sqsEvent(record), { ...lambdaContext(), getRemainingTimeInMillis: () => deadline - Date.now() });
    expect(failedIds(answer)).toEqual([record.messageId]);
    expect(rig.accepted(key)).toBe(0);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'PENDING', lastRelease: 'transient' });

    expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
    expect(rig.accepted(key)).toBe(1);
    expect(sender.metrics.get(METRIC.GaveUpAfterAmbiguity)).toBe(0);
  });

  it('a transactional message whose takeover response was lost is not resent inside its evidence window', async () => {
    const eventId = 'evt-wire-transactional-takeover-lost';
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const body = JSON.stringify(loginCodeEvent({ eventId, messageClass: 'transactional' }));
    const sender = rig.sender();
    rig.snsProxy.setDecider(faultFirst(isPublish, throttle()));
    await sender.invoke(sqsRecord(body));

    rig.dynamoProxy.setDecider(faultFirst((r) => r.ledgerWrite === 'takeover', { kind: 'lose-response' }));
    expect(failedIds(await sender.invoke(sqsRecord(body)))).toEqual([]);
    expect(rig.accepted(key)).toBe(1);
    expect(sender.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(0);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT', attempts: 2 });
  });
});
