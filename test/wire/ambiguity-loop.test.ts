import { describe, expect, it } from 'vitest';
import { AMBIGUITY_LOOP_LIMIT } from '../../functions/core/ledger/ambiguity-loop';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC, type MetricName } from '../../functions/core/observability/metric-names';
import { awsErrorResponse } from '../../local/aws/aws-error-shapes';
import type { FaultDecider, WireFault } from '../../local/aws/wire-fault-proxy';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent, orderShippedEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds, type SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { useWireRig, type WireRig } from './wire-harness';

// A loop of unknown outcomes through the real sender, SDK clients and ledger: every call of one message fails
// the same way, with no answer from the provider (the connection reset before any response).

const db = useTestLedger();
const rig = useWireRig(db);

const RESET: WireFault = { kind: 'reset-before' };
const isSend = (r: { operation: string }) => r.operation === 'Publish' || r.operation === 'SendEmail';

/** Applies the faults in order to the sends, one each; after the list, `then` (default: none). */
function faultsInOrder(faults: readonly (WireFault | undefined)[], then?: WireFault): FaultDecider {
  let next = 0;
  return (request) => {
    if (!isSend(request)) return undefined;
    const fault = next < faults.length ? faults[next] : then;
    next += 1;
    return fault;
  };
}

/** Delivers `body` up to `receives` times (a receive per call, the clock moved by `gapMs` before each redelivery); the receives it took. */
async function receiveUntilSettled(sender: SenderHarness, body: string, receives: number, clock?: ControlledClock, gapMs = 0): Promise<number> {
  for (let receive = 1; receive <= receives; receive += 1) {
    if (receive > 1) clock?.advance(gapMs);
    if (failedIds(await sender.invoke(sqsRecord(body))).length === 0) return receive;
  }
  return Number.POSITIVE_INFINITY;
}

const sends = (proxy: WireRig['snsProxy']) => proxy.requests.filter(isSend).length;

/** The message ended by a loop of connection resets, and what was counted on the way (`AmbiguityLoopStopped` once). */
async function expectLoopStopped(sender: SenderHarness, key: string, counts: Partial<Record<MetricName, number>>): Promise<void> {
  expect(await db.ledger.get(key)).toMatchObject({ state: 'UNKNOWN', failureReason: expect.stringMatching(/^AmbiguityLoop: 3 calls in a row unanswered, ECONNRESET; last: /) });
  for (const [metric, n] of Object.entries({ [METRIC.AmbiguityLoopStopped]: 1, ...counts })) expect(sender.metrics.get(metric as MetricName), metric).toBe(n);
}

describe(`an ambiguity loop ends: the same failure without an answer on ${AMBIGUITY_LOOP_LIMIT} calls in a row`, () => {
  it('otp SMS, the connection reset on every call: UNKNOWN at the third call, counted, instead of a resend at each of 100 receives', async () => {
    const eventId = 'evt-loop-otp';
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    rig.snsProxy.setDecider(faultsInOrder([], RESET));
    const before = sends(rig.snsProxy);
    const sender = rig.sender();

    expect(await receiveUntilSettled(sender, JSON.stringify(loginCodeEvent({ eventId })), 10)).toBe(3);
    expect(sends(rig.snsProxy) - before).toBe(3);
    await expectLoopStopped(sender, key, { [METRIC.AmbiguousOutcome]: 3, [METRIC.ResentAfterAmbiguity]: 2, [METRIC.GaveUpAfterAmbiguity]: 0 });
  });

  it('transactional e-mail: each evidence wait is waited, and the third call ends it', async () => {
    const eventId = 'evt-loop-transactional';
    const event = orderShippedEvent({ eventId, recipients: [orderShippedEvent().recipients[1]!] });
    const key = idempotencyKey({ eventId, recipientId: 'seller-4', channel: 'email', templateId: 'order-shipped' });
    rig.sesProxy.setDecider(faultsInOrder([], RESET));
    const before = sends(rig.sesProxy);
    const clock = new ControlledClock();
    const sender = rig.sender(clock);

    // Receives alternate: one inside the 300 s evidence wait (sends nothing), one past it (sends again).
    expect(await receiveUntilSettled(sender, JSON.stringify(event), 10, clock, 151_000)).toBe(5);
    expect(sends(rig.sesProxy) - before).toBe(3);
    await expectLoopStopped(sender, key, { [METRIC.ResentAfterAmbiguity]: 2 });
  });

  it('an answer from the provider in between (a 500) is evidence the request reached it: the count starts again', async () => {
    const eventId = 'evt-loop-answered';
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    const answered: WireFault = { kind: 'error-before', response: awsErrorResponse('sns', 500, 'InternalError', 'Internal error') };
    rig.snsProxy.setDecider(faultsInOrder([RESET, RESET, answered, RESET, RESET], RESET));
    const before = sends(rig.snsProxy);
    const sender = rig.sender();

    expect(await receiveUntilSettled(sender, JSON.stringify(loginCodeEvent({ eventId })), 10)).toBe(6);
    expect(sends(rig.snsProxy) - before).toBe(6);
    await expectLoopStopped(sender, key, { [METRIC.AmbiguousOutcome]: 6 });
  });

  it('a call that goes through ends it as sent, whatever the streak', async () => {
    const eventId = 'evt-loop-then-sent';
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    rig.snsProxy.setDecider(faultsInOrder([RESET, RESET]));
    const sender = rig.sender();

    expect(await receiveUntilSettled(sender, JSON.stringify(loginCodeEvent({ eventId })), 10)).toBe(3);
    expect(await db.ledger.get(key)).toMatchObject({ state: 'SENT' });
    expect(rig.accepted(key)).toBe(1);
    expect(sender.metrics.get(METRIC.AmbiguityLoopStopped)).toBe(0);
  });
});
