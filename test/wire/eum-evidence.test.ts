import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { EumEventFate } from '../../local/aws/local-eum';
import { startLocalSqs, type LocalSqs } from '../../local/aws/local-sqs';
import { startSmsEventPath, type SmsEventPath } from '../../local/aws/sms-event-path';
import type { WireFault } from '../../local/aws/wire-fault-proxy';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { failedIds, type SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { StatusHarness } from '../status/status-harness';
import { faultFirst, startWireRig, type WireRig } from './wire-harness';

/**
 * The hard case for texts, through the real SDK client and the real status handler: a SendTextMessage that
 * End User Messaging accepted and whose answer was lost. Its events carry the key and the claim version in
 * their Context, and travel the stack's path (SNS topic -> SQS queue with raw delivery -> status Lambda); the
 * next delivery of the record finds them on the row. Faults are below the SDK (the wire proxy), and the
 * stand-in counts the texts it accepted, independently of the ledger.
 */
const db = useTestLedger();
let sqs: LocalSqs;
let path: SmsEventPath;
let rig: WireRig;
const eventFates = new Map<string, EumEventFate>();

beforeAll(async () => {
  sqs = await startLocalSqs();
  path = await startSmsEventPath(sqs);
  rig = await startWireRig(db, {
    eum: { publishEvent: (event) => path.publish(event), eventFate: (key) => (key !== undefined ? eventFates.get(key) : undefined) ?? 'deliver' },
  });
}, 30_000);
afterAll(async () => {
  await rig?.stop();
  path?.stop();
  await sqs?.stop();
});

const isSend = (r: { operation: string }) => r.operation === 'SendTextMessage';
const ANSWER_LOST: WireFault = { kind: 'lose-response' };
const REFUSED_BEFORE_ARRIVAL: WireFault = { kind: 'reset-before' };

interface Story {
  readonly clock: ControlledClock;
  readonly sender: SenderHarness;
  readonly key: string;
  /** Delivers the record once more; true when it was acknowledged (every message settled). */
  deliver(): Promise<boolean>;
  /** Every event published so far, through the topic and the queue, to the status handler. */
  events(): Promise<number>;
}

/** A story of its own: the events earlier stories left on the path are delivered first. */
async function story(name: string, messageClass: string, fault: WireFault): Promise<Story> {
  const eventId = `evt-eum-story-${name}-${messageClass}`;
  const event = loginCodeEvent({ eventId, messageClass });
  const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
  const clock = new ControlledClock();
  const sender = rig.sender(clock, undefined, undefined, { smsProvider: 'end-user-messaging' });
  rig.eumProxy.setDecider(faultFirst(isSend, fault));
  const status = new StatusHarness(db.ledger, clock);
  await rig.eum.settled();
  await path.drain((e) => status.invoke(e));
  return {
    clock,
    sender,
    key,
    deliver: async () => failedIds(await sender.invoke(sqsRecord(JSON.stringify(event)))).length === 0,
    events: async () => {
      await rig.eum.settled();
      return path.drain((e) => status.invoke(e));
    },
  };
}

describe('accepted, then the answer lost: settled by the events, one text', () => {
  it.each(['otp', 'transactional', 'marketing'])('%s: SENT by evidence, exactly one text, nothing counted as a possible duplicate or miss', async (messageClass) => {
    const s = await story('answer-lost', messageClass, ANSWER_LOST);
    expect(await s.deliver()).toBe(false);
    expect(s.sender.metrics.get(METRIC.AmbiguousOutcome)).toBe(1);
    expect(await s.events()).toBe(2); // TEXT_PENDING and TEXT_DELIVERED, with the key and claim version 1
    s.clock.advance(1_000);
    expect(await s.deliver()).toBe(true);

    const [text] = rig.eum.accepted().filter((t) => t.key === s.key);
    expect(rig.accepted(s.key)).toBe(1);
    // Settled by the evidence under End User Messaging's own id, which only the events carried.
    expect(await db.ledger.get(s.key)).toMatchObject({ state: 'SENT', providerMessageId: text!.messageId, deliveryStatusClaimVersion: 1 });
    expect(s.sender.metrics.get(METRIC.SentByEvidence)).toBe(1);
    expect(s.sender.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(0);
    expect(s.sender.metrics.get(METRIC.GaveUpAfterAmbiguity)).toBe(0);
  });
});

/** Each class after its evidence window with no evidence: otp resends after 30 s, transactional after 300 s, marketing gives up after 300 s. */
const AFTER_THE_WINDOW = {
  otp: { windowMs: 30_000, state: 'SENT', resent: 1, gaveUp: 0 },
  transactional: { windowMs: 300_000, state: 'SENT', resent: 1, gaveUp: 0 },
  marketing: { windowMs: 300_000, state: 'UNKNOWN', resent: 0, gaveUp: 1 },
} as const;

describe('refused before arrival: no events come, the class acts after its window, counted', () => {
  it.each(['otp', 'transactional', 'marketing'] as const)('%s', async (messageClass) => {
    const expected = AFTER_THE_WINDOW[messageClass];
    const s = await story('refused', messageClass, REFUSED_BEFORE_ARRIVAL);
    expect(await s.deliver()).toBe(false); // the connection reset: the SDK cannot know the request never arrived
    expect(rig.accepted(s.key)).toBe(0);
    expect(await s.events()).toBe(0);
    // Inside the window: the next delivery waits, and sends nothing.
    s.clock.advance(expected.windowMs - 1_000);
    expect(await s.deliver()).toBe(false);
    expect(rig.accepted(s.key)).toBe(0);
    s.clock.advance(1_000);
    expect(await s.deliver()).toBe(true);

    expect(await db.ledger.get(s.key)).toMatchObject({ state: expected.state });
    expect(rig.accepted(s.key)).toBe(expected.resent);
    expect(s.sender.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(expected.resent);
    expect(s.sender.metrics.get(METRIC.GaveUpAfterAmbiguity)).toBe(expected.gaveUp);
  });
});

describe('accepted, answer lost, and the events lost too: the class\'s policy after its window, counted', () => {
  it.each(['otp', 'transactional', 'marketing'] as const)('%s', async (messageClass) => {
    const expected = AFTER_THE_WINDOW[messageClass];
    const s = await story('events-lost', messageClass, ANSWER_LOST);
    eventFates.set(s.key, 'drop');
    expect(await s.deliver()).toBe(false);
    expect(await s.events()).toBe(0);
    s.clock.advance(expected.windowMs);
    expect(await s.deliver()).toBe(true);

    expect(await db.ledger.get(s.key)).toMatchObject({ state: expected.state });
    // The first text went out: a resend is a real second text, and counted as the possible duplicate it is.
    expect(rig.accepted(s.key)).toBe(1 + expected.resent);
    expect(s.sender.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(expected.resent);
    expect(s.sender.metrics.get(METRIC.GaveUpAfterAmbiguity)).toBe(expected.gaveUp);
  });
});

describe('events late: after the window they no longer decide, they only enrich the settled row', () => {
  it('otp resent after 30 s (counted); the late events of the first text are recorded and change no state', async () => {
    const s = await story('events-late', 'otp', ANSWER_LOST);
    eventFates.set(s.key, { delayMs: 300 });
    expect(await s.deliver()).toBe(false);
    s.clock.advance(30_000);
    expect(await s.deliver()).toBe(true);
    expect(s.sender.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(1);
    expect(await s.events()).toBe(4); // both texts' events, the first text's late
    expect(await db.ledger.get(s.key)).toMatchObject({ state: 'SENT', deliveryStatus: 'TEXT_DELIVERED' });
    expect(rig.accepted(s.key)).toBe(2);
  });
});
