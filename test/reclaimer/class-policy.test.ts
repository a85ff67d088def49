import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import { ledgerItemKey } from '../../functions/core/ledger/ledger-table';
import { METRIC, type MetricName } from '../../functions/core/observability/metric-names';
import { REQUEST_NOT_STORED } from '../../functions/reclaimer/plan-from-row';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { crashAfterFirst, invokeOrKill } from '../support/faults';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, SenderHarness } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { smsCountryTable } from '../../lib/sms-countries';
import { ReclaimerHarness, seedDeadClaims } from './reclaimer-harness';

const db = useTestLedger();

type DiedAfter = 'claim' | 'send';
type ClassName = 'otp' | 'transactional' | 'marketing';

/**
 * A sender dies (its invocation never answers) right after its claim or right after the
 * provider accepted the message, and SQS never brings the event back: only the reclaimer
 * can settle the row. Expected provider calls in total, final state, and reclaimer metric.
 */
const EXPECTED: Record<DiedAfter, Record<ClassName, { calls: number; state: string; metric: MetricName }>> = {
  claim: {
    otp: { calls: 1, state: 'SENT', metric: METRIC.ReclaimedResent }, // resend: nothing went out before
    transactional: { calls: 1, state: 'SENT', metric: METRIC.ReclaimedResent }, // look-up: provider has no record
    marketing: { calls: 0, state: 'UNKNOWN', metric: METRIC.ReclaimedGaveUp }, // give-up: a counted possible miss
  },
  send: {
    otp: { calls: 2, state: 'SENT', metric: METRIC.ReclaimedResent }, // the one allowed, counted duplicate
    transactional: { calls: 1, state: 'SENT', metric: METRIC.ReclaimedSent }, // look-up finds our key: no resend
    marketing: { calls: 1, state: 'UNKNOWN', metric: METRIC.ReclaimedGaveUp },
  },
};

const cases = (['claim', 'send'] as const).flatMap((diedAfter) =>
  (['otp', 'transactional', 'marketing'] as const).map((messageClass) => ({ diedAfter, messageClass })),
);

/** Runs the real sender until it dies at `diedAfter`; returns the harness and the message's key. */
async function senderDiesAfter(diedAfter: DiedAfter, eventId: string, messageClass: string, phone?: string) {
  const event = loginCodeEvent({
    eventId,
    messageClass,
    ...(phone ? { recipients: [{ recipientId: 'user-9', phone, channels: ['sms' as const] }] } : {}),
  });
  const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
  const sender = new SenderHarness({
    ledger: diedAfter === 'claim' ? crashAfterFirst(db.ledger, 'claim', 'hang') : db.ledger,
    wrapProvider: diedAfter === 'send' ? (p: DeliveryProvider) => crashAfterFirst(p, 'send', 'hang') : undefined,
  });
  expect(await invokeOrKill(sender.invoke(sqsRecord(JSON.stringify(event))))).toBe('killed');
  expect((await db.ledger.get(key))?.state).toBe('PENDING');
  return { sender, key, body: JSON.stringify(event) };
}

describe('the reclaimer settles a stale PENDING row per its message class', () => {
  it.each(cases)('worker died after $diedAfter, class $messageClass', async ({ diedAfter, messageClass }) => {
    const { sender, key, body } = await senderDiesAfter(diedAfter, `evt-reclaim-${diedAfter}-${messageClass}`, messageClass);
    const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock: sender.clock, outboxFile: sender.outboxFile });

    // Not yet stale: the reclaimer leaves a live claim alone.
    sender.clock.advance(CLAIM_TIMEOUT_MS - 1_000);
    expect((await reclaimer.run()).found).toBe(0);

    sender.clock.advance(2_000);
    const summary = await reclaimer.run();
    const expected = EXPECTED[diedAfter][messageClass];
    expect(summary.found).toBe(1);
    expect((await sender.callsPerKey()).get(key) ?? 0).toBe(expected.calls);
    const row = await db.ledger.get(key);
    expect(row?.state).toBe(expected.state);
    expect(row?.pendingShard).toBeUndefined(); // left the pending index
    expect(row?.request).toBeUndefined(); // the stored message is gone once settled
    expect(reclaimer.metrics.get(METRIC.StalePendingFound)).toBe(1);
    expect(reclaimer.metrics.get(expected.metric)).toBe(1);

    // A later run finds nothing, and a late SQS redelivery is a suppressed duplicate.
    sender.clock.advance(CLAIM_TIMEOUT_MS * 2);
    expect((await reclaimer.run()).found).toBe(0);
    expect((await sender.invoke(sqsRecord(body))).batchItemFailures).toEqual([]);
    expect(sender.metrics.get(METRIC.DuplicateSuppressed)).toBe(1);
    expect((await sender.callsPerKey()).get(key) ?? 0).toBe(expected.calls);
  });

  it('a lookup row without evidence waits for it, then falls back to its class choice', async () => {
    const { sender, key } = await senderDiesAfter('send', 'evt-reclaim-lookup-wait', 'transactional');
    // SES v2 and SNS cannot be asked: only delivery-status events could prove the send.
    const reclaimer = new ReclaimerHarness({
      ledger: db.ledger,
      clock: sender.clock,
      outboxFile: sender.outboxFile,
      withoutLookup: true,
    });

    sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    const first = await reclaimer.run();
    expect(first).toMatchObject({ found: 1, leftPending: 1 });
    expect((await db.ledger.get(key))).toMatchObject({ state: 'PENDING', lastRelease: 'ambiguous' });
    expect((await sender.callsPerKey()).get(key)).toBe(1);

    // Past the class's evidence wait (300 s) and the new claim's timeout: fallback `resend`.
    sender.clock.advance(300_000);
    const second = await reclaimer.run();
    expect(second).toMatchObject({ found: 1, resent: 1 });
    expect((await db.ledger.get(key))?.state).toBe('SENT');
    expect((await sender.callsPerKey()).get(key)).toBe(2);
    expect(reclaimer.metrics.get(METRIC.ResentAfterAmbiguity)).toBe(1);
  });

  it('a row whose class is no longer configured is handled as give-up: a counted miss, never a blind duplicate', async () => {
    const sender = new SenderHarness({ ledger: db.ledger });
    const event = loginCodeEvent({ eventId: 'evt-reclaim-retired-class', messageClass: 'otp' });
    const [seeded] = await seedDeadClaims(db.ledger, event, sender.clock.now());
    // Rewrite the class as a deployment that has since removed it would have left it.
    await DynamoDBDocumentClient.from(db.client).send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: ledgerItemKey(seeded!.key),
        UpdateExpression: 'SET messageClass = :c',
        ExpressionAttributeValues: { ':c': 'retired-class' },
      }),
    );
    const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock: sender.clock, outboxFile: sender.outboxFile });
    sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(await reclaimer.run()).toMatchObject({ found: 1, gaveUp: 1 });
    expect((await db.ledger.get(seeded!.key))?.state).toBe('UNKNOWN');
    expect((await sender.outbox()).length).toBe(0);
  });

  it('a row without a stored request ends FAILED with the reason, and nothing is sent', async () => {
    // The address is invalid, so the sender claimed a row without a request and died before FAILED.
    const { sender, key } = await senderDiesAfter('claim', 'evt-reclaim-no-request', 'otp', 'not-a-phone');
    expect((await db.ledger.get(key))?.request).toBeUndefined();
    const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock: sender.clock, outboxFile: sender.outboxFile });

    sender.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(await reclaimer.run()).toMatchObject({ found: 1, failed: 1 });
    expect(await db.ledger.get(key)).toMatchObject({ state: 'FAILED', failureReason: REQUEST_NOT_STORED });
    expect((await sender.callsPerKey()).get(key) ?? 0).toBe(0);
  });
});

describe('a stale row whose destination is no longer allowed', () => {
  it('ends SUPPRESSED with its reason, never sent, and the run counts it among those found', async () => {
    const clock = new ControlledClock();
    const [row] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId: 'evt-reclaim-suppressed' }), clock.now() - CLAIM_TIMEOUT_MS - 60_000);
    const outboxFile = new SenderHarness({ ledger: db.ledger, clock }).outboxFile;
    // The SMS countries shrank to GB after the claim; the number is a US one.
    const reclaimer = new ReclaimerHarness({ ledger: db.ledger, clock, outboxFile, destinations: { sms: smsCountryTable(['GB']) } });
    expect(await reclaimer.run()).toMatchObject({ found: 1, suppressed: 1, resent: 0, sent: 0, leftPending: 0 });
    expect(await db.ledger.get(row!.key)).toMatchObject({ state: 'SUPPRESSED', suppressionReason: 'CountryNotAllowed' });
  });
});
