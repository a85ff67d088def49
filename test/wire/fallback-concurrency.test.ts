import { randomUUID } from 'node:crypto';
import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eumSmsProvider } from '../../functions/adapters/eum-sms-provider';
import { SqsFallbackQueue } from '../../functions/adapters/sqs-fallback-queue';
import { createFallbackTrigger } from '../../functions/fallback/create-fallback-trigger';
import { sendClientConfig } from '../../functions/adapters/send-clients';
import { fallbackRequestBody } from '../../functions/core/fallback/fallback-request';
import { METRIC } from '../../functions/core/observability/metric-names';
import { silentLog } from '../../functions/core/observability/log-port';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { createReclaimer } from '../../functions/reclaimer/create-reclaimer';
import { outcomesOfBatch } from '../../functions/outcomes/outcomes-of-batch';
import { awsErrorResponse, internalErrorResponse } from '../../local/aws/aws-error-shapes';
import { mulberry32 } from '../../local/prng';
import { eumEvent, sqsEvent } from '../status/eum-fixtures';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, RETENTION_MS, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';
import { firstRecipientKey as keyOf, SHORT_OTP_CLASSES_JSON, startFallbackRig, type FallbackRig } from './fallback-rig';
import { WIRE_SEND_TIMEOUT_MS } from './wire-harness';

/**
 * The same fallback triggered by the sender, the status function and the reclaimer at once, every hop through the
 * real SDK clients on loopback (fallback-rig.ts). The story, one sign-in code by text (End User Messaging) with an
 * e-mail fallback:
 * - the first invocation claims the text, End User Messaging accepts it, and the invocation dies before its outcome
 *   is written (every write of it refused by DynamoDB): the row stays PENDING, and goes stale;
 * - the handset blocks that text (`TEXT_BLOCKED`, final), and the number opts out (End User Messaging refuses it from
 *   then on: `ConflictException` `DESTINATION_PHONE_NUMBER_OPTED_OUT`, injected at the wire);
 * - then, together or staggered in a seeded order: the status function records the blocked text; SQS redelivers the
 *   event to a new sender, which takes the row over and is refused synchronously (FAILED `OptedOut`); the reclaimer
 *   settles the same stale row (and meets the refusal, or finds the row moved on);
 * - the fallback trigger reads every stream record those writes made (during the race and after), and again (a stream
 *   redelivers); every request it puts is handled by senders at once, and handed to them again (SQS redelivers).
 * Whatever the order: one e-mail at SES, one fallback row, its outcome events naming the text they replace. (The first
 * text's answer never reached the ledger, so its row keeps an ambiguity and the refusal is no certain verdict: the
 * e-mail goes by otp's window, which is what the wait below is for.)
 */
const db = useTestLedger();
// otp's evidence window made short (1 s), as in channel-fallback.test.ts, so that a primary the race leaves
// possibly delivered (its evidence read first) falls back within the test, by the class's exception.
const PHONE = '+14155550142';
const SEEDS = [1, 2, 3, 4, 5, 6];

let rig: FallbackRig;
beforeAll(async () => {
  rig = await startFallbackRig(db, { messageClassesJson: SHORT_OTP_CLASSES_JSON });
}, 30_000);
afterAll(async () => rig?.stop());

/** The real reclaimer over the rig's ledger, texting through End User Messaging like the sender. */
function reclaimer() {
  const eum = new PinpointSMSVoiceV2Client({
    ...sendClientConfig(WIRE_SEND_TIMEOUT_MS),
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    endpoint: rig.wire.eumProxy.endpoint,
  });
  const classes = buildMessageClassRegistry(SHORT_OTP_CLASSES_JSON);
  const sms = eumSmsProvider(eum, { configurationSetName: 'notifier-sms', timeToLiveSeconds: (name) => classes.get(name)?.smsTimeToLiveSeconds });
  const unused = { send: () => Promise.reject(new Error('the story sends texts only')) };
  const run = createReclaimer({
    ledger: rig.wire.ledger,
    pending: rig.wire.ledger,
    providers: { sms, email: unused, push: unused },
    metrics: new InMemoryMetrics(),
    log: silentLog,
    clock: rig.clock.now,
    newOwnerToken: randomUUID,
    timing: { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RETENTION_MS },
    sendTimeoutMs: WIRE_SEND_TIMEOUT_MS,
    messageClasses: classes,
    limits: { timeBudgetMs: 20_000, maxRowsPerRun: 500, pageSize: 25, concurrency: 8 },
  });
  return { run: () => run.run().finally(() => eum.destroy()) };
}

/** Every ledger row that names `primaryKey` as the message it replaces (however its key was made). */
async function rowsReplacing(primaryKey: string): Promise<Record<string, unknown>[]> {
  const scanned = await db.client.send(new ScanCommand({ TableName: db.tableName, FilterExpression: 'replaces = :k', ExpressionAttributeValues: { ':k': { S: primaryKey } } }));
  return (scanned.Items ?? []).map((item) => unmarshall(item));
}

/** Hands every batch the mapping has handed the trigger so far to a trigger again, as a stream redelivers a batch. */
async function redeliverStream(): Promise<void> {
  const client = rig.sqs.client();
  const trigger = createFallbackTrigger({
    queue: new SqsFallbackQueue(client, { urgent: rig.sqs.queueUrl, bulk: rig.sqs.queueUrl }),
    ledger: rig.wire.ledger,
    messageClasses: buildMessageClassRegistry(SHORT_OTP_CLASSES_JSON),
    clock: rig.clock.now,
    metrics: new InMemoryMetrics(),
    log: silentLog,
  });
  for (const batch of rig.mapping.invocations()) await trigger(batch, {} as never);
  client.destroy();
}

/** Puts `copies` more requests for `primaryKey`'s fallback on the sender's queue (SQS delivers at least once). */
async function requestAgain(primaryKey: string, copies: number): Promise<void> {
  const client = rig.sqs.client();
  for (let i = 0; i < copies; i += 1) await client.send(new SendMessageCommand({ QueueUrl: rig.sqs.queueUrl, MessageBody: fallbackRequestBody(primaryKey) }));
  client.destroy();
}

/** Starts each actor after a seeded pause (0 to 15 ms), in a seeded order; seed 1 starts them all at once. */
function race(seed: number, actors: readonly (() => Promise<unknown>)[]): Promise<unknown[]> {
  const random = mulberry32(seed);
  const order = actors.map((actor, i) => ({ actor, i, at: seed === 1 ? 0 : Math.floor(random() * 16) })).sort((a, b) => a.at - b.at || random() - 0.5);
  return Promise.all(order.map(({ actor, at }) => (at === 0 ? actor() : new Promise((resolve) => setTimeout(resolve, at)).then(actor))));
}

describe('one fallback, whoever triggers it: the sender, the status function and the reclaimer at once', () => {
  it.each(SEEDS)('seed %i: one e-mail at SES, one fallback row, outcome events naming the text it replaces', async (seed) => {
    const address = `fallback-race-${seed}@example.com`;
    const event = loginCodeEvent({
      eventId: `evt-fallback-race-${seed}`,
      occurredAt: new Date(rig.clock.now()).toISOString(),
      recipients: [{ recipientId: `user-race-${seed}`, phone: PHONE, email: address, channels: [], fallback: ['sms', 'email'] }],
    });
    const smsKey = keyOf(event, 'sms');
    const requestedBefore = rig.triggerMetrics.get(METRIC.FallbackRequested) ?? 0;
    const first = rig.sender({ smsProvider: 'end-user-messaging' });
    // The first invocation: the text accepted, then every write of its outcome refused (it dies holding the claim).
    rig.wire.dynamoProxy.setDecider((r) => (r.body.includes(smsKey) && (r.ledgerWrite === 'complete' || r.ledgerWrite === 'release') ? { kind: 'error-before', response: internalErrorResponse('dynamodb') } : undefined));
    expect(failedIds(await first.invoke(sqsRecord(JSON.stringify(event), 'm-1')))).toEqual(['m-1']);
    rig.wire.dynamoProxy.setDecider(() => undefined);
    const text = rig.wire.eum.accepted().find((t) => t.key === smsKey);
    expect(text).toBeDefined();
    expect(await rig.wire.ledger.get(smsKey)).toMatchObject({ state: 'PENDING', claimVersion: 1 });
    // The number opts out: End User Messaging refuses every later text to it, synchronously.
    rig.wire.eumProxy.setDecider((r) =>
      r.operation === 'SendTextMessage' && r.body.includes(PHONE)
        ? { kind: 'error-before', response: awsErrorResponse('sms-voice', 400, 'ConflictException', 'The destination phone number is opted out', { reason: 'DESTINATION_PHONE_NUMBER_OPTED_OUT', resourceType: 'opted-out-number' }) }
        : undefined,
    );
    rig.clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    const blocked = sqsEvent(eumEvent('TEXT_BLOCKED', { key: smsKey, claimVersion: 1, messageId: text!.messageId, at: rig.clock.now() }));

    await race(seed, [
      () => rig.status.invoke(blocked),
      () => rig.sender({ smsProvider: 'end-user-messaging' }).invoke(sqsRecord(JSON.stringify(event), 'm-1', { receiveCount: 2 })),
      () => reclaimer().run(),
      () => rig.drainStream(),
    ]);
    // Whatever is left: the event again, the status again (SNS and SQS deliver at least once), the stream read twice.
    await rig.status.invoke(blocked);
    await rig.drainStream();
    await redeliverStream();
    // Every request, to three senders at once; more copies of it (SQS at least once); the stream read again.
    await requestAgain(smsKey, 2);
    for (let round = 0; round < 4; round += 1) {
      await rig.pump(rig.sender(), rig.sender(), rig.sender());
      await rig.drainStream();
      if (round === 1) {
        // The class's window (1 s of SQS's real DelaySeconds) for a primary the race left possibly delivered.
        await new Promise((resolve) => setTimeout(resolve, 1_300));
        rig.clock.advance(1_500);
        await reclaimer().run();
        await rig.drainStream();
      }
    }
    await redeliverStream();
    await requestAgain(smsKey, 2);
    await rig.pump(rig.sender(), rig.sender());
    rig.wire.eumProxy.setDecider(() => undefined);

    // The race settled the text (FAILED OptedOut, or by its evidence) and the trigger asked for its fallback.
    const primary = await rig.wire.ledger.get(smsKey);
    expect(primary?.state).not.toBe('PENDING');
    expect(rig.triggerMetrics.get(METRIC.FallbackRequested)).toBeGreaterThanOrEqual(requestedBefore + 1);
    // The providers' side, by address (a fallback under another key would still be counted here): one e-mail.
    expect(rig.wire.ses.accepted().filter((mail) => mail.to.includes(address)).map((mail) => mail.key)).toEqual([keyOf(event, 'email')]);
    const fallbacks = await rowsReplacing(smsKey);
    expect(fallbacks.map((row) => [row['sk'], row['state']])).toEqual([[keyOf(event, 'email'), 'SENT']]);
    // The outcome events of the fallback's row, as the publisher reads the stream: each names the text it replaces.
    const records = rig.stream.all().map((stored) => stored.record);
    const outcomes = outcomesOfBatch(records, {}).outcomes.map((o) => o.detail).filter((detail) => detail.key === keyOf(event, 'email'));
    expect(outcomes.length).toBeGreaterThan(0);
    for (const detail of outcomes) expect(detail.replaces).toBe(smsKey);
  }, 30_000);
});
