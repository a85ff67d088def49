import { describe, expect, it } from 'vitest';
import { DEAD_LETTER_ATTRIBUTE } from '../../functions/adapters/sqs-dead-letters';
import { decideOnExistingRow } from '../../functions/core/ledger/ledger-decision';
import { parseNotificationBody } from '../../functions/core/event/notification-event';
import { pendingShardOf } from '../../functions/core/ledger/ledger-table';
import { unpackRequest } from '../../functions/core/ledger/stored-request';
import { ALARM } from '../../lib/notifier-alarms';
import { CHECK_CLAIM_TIMEOUT_SECONDS, planAwsCheck, SES_SIMULATOR } from '../../scripts/aws-check/plan';
import { finalProbeVerdict, judgeAlarmDelivery, judgeDeadLetter, probeLine } from '../../scripts/aws-check/probe-verdicts';
import { PLANTED_CLAIM_AGE_MS, setAlarmStateArgs, subscriberQueuePolicy } from '../../scripts/aws-check/probes';

const nowIso = '2026-11-30T15:00:00.000Z';
const plan = planAwsCheck({ runId: 'ab12cd34', emailFrom: 'check@mail.acme-notifier.dev', nowIso });
const nowMs = Date.parse(nowIso);

describe('the alarm probe', () => {
  const { alarm } = plan;
  const ALARM_NAME = 'NotifierCheck-ab12cd34-LedgerErrors-ABC';
  const notification = (message: Record<string, unknown>): string =>
    JSON.stringify({ Type: 'Notification', TopicArn: 'arn:aws:sns:eu-west-1:1:t', Message: JSON.stringify(message) });
  const ours = { AlarmName: ALARM_NAME, NewStateValue: 'ALARM', NewStateReason: alarm.reason };

  it('sets an alarm the run itself never breaches, with a reason naming the run, via a queue named for the run', () => {
    expect(alarm.alarm).toBe(ALARM.ledgerErrors);
    expect(alarm.alarmNameOutput).toBe('LedgerErrorsAlarmName');
    expect(alarm.reason).toContain('ab12cd34');
    expect(alarm.subscriberQueueName).toBe('NotifierCheck-ab12cd34-alarm-subscriber');
    // SQS queue names: up to 80 letters, digits, hyphens and underscores.
    expect(planAwsCheck({ runId: 'a'.repeat(16), emailFrom: 'check@mail.acme-notifier.dev', nowIso }).alarm.subscriberQueueName).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
  });

  it('passes on the SNS notification of that alarm going to ALARM with the run\'s reason', () => {
    expect(judgeAlarmDelivery(alarm, ALARM_NAME, [notification(ours)]).kind).toBe('passed');
  });

  it('waits while only other notifications arrived: another alarm, the OK that follows, another run, not SNS JSON', () => {
    const others = [
      notification({ ...ours, AlarmName: 'OtherAlarm' }),
      notification({ ...ours, NewStateValue: 'OK' }),
      notification({ ...ours, NewStateReason: 'Threshold Crossed: 1 datapoint' }),
      JSON.stringify(ours),
      'not json',
      undefined,
    ];
    expect(judgeAlarmDelivery(alarm, ALARM_NAME, others)).toMatchObject({ kind: 'waiting', why: `2 notification(s) for ${ALARM_NAME}, none ALARM with this run's reason` });
    expect(judgeAlarmDelivery(alarm, ALARM_NAME, [])).toMatchObject({ kind: 'waiting', why: `no notification for ${ALARM_NAME} yet` });
    expect(judgeAlarmDelivery(alarm, ALARM_NAME, [...others, notification(ours)]).kind).toBe('passed');
  });

  it('fails once the deadline passes without it', () => {
    const verdict = finalProbeVerdict(judgeAlarmDelivery(alarm, ALARM_NAME, []));
    expect(verdict).toMatchObject({ kind: 'failed', why: `timed out: no notification for ${ALARM_NAME} yet` });
    expect(probeLine(verdict)).toMatch(/^FAIL CloudWatch delivered an alarm .*: timed out/);
  });
});

describe('the planted claim for the reclaimer', () => {
  const { row } = plan.reclaim;

  it('is a PENDING first claim of an e-mail to the SES success simulator, with the request the reclaimer resends', () => {
    expect(row).toMatchObject({ state: 'PENDING', claimVersion: 1, attempts: 1, channel: 'email', messageClass: 'otp', eventId: 'check-ab12cd34-reclaim' });
    // Packed, as a sender's claim on a message's last receive keeps it.
    expect(row.request).toBeInstanceOf(Uint8Array);
    expect(unpackRequest(row.request!)).toMatchObject({ ok: true, message: { channel: 'email', to: SES_SIMULATOR.success } });
  });

  it('is in the pending index, so the reclaimer finds it', () => {
    expect(row.pendingShard).toBe(pendingShardOf(row.key));
  });

  it('has a lease that expired before the run started, so it looks stale at once', () => {
    expect(row.claimedAt).toBe(nowMs - PLANTED_CLAIM_AGE_MS);
    expect(row.leaseExpiresAt).toBe(row.claimedAt + CHECK_CLAIM_TIMEOUT_SECONDS * 1000);
    expect(row.leaseExpiresAt).toBeLessThan(nowMs);
    expect(plan.context['notifier:claimTimeoutSeconds']).toBe(String(CHECK_CLAIM_TIMEOUT_SECONDS));
    expect(decideOnExistingRow(row, nowMs).kind).toBe('take-over');
  });

  it('outlives the run: its TTL is the ledger retention the copy is deployed with', () => {
    expect(row.expiresAt * 1000).toBeGreaterThan(nowMs + 86_400_000);
  });

  it('belongs to no event the run queues (only the reclaimer can send it)', () => {
    expect(plan.sends.map((e) => e.eventId)).not.toContain(row.eventId);
    expect(plan.sends.every((e) => parseNotificationBody(JSON.stringify(e), 262_144).event.eventId !== row.eventId)).toBe(true);
  });
});

describe('the dead-letter probe', () => {
  const { deadLetter } = plan;
  const SOURCE = 'sqs-message-1';
  const attrs = (over: Record<string, string | undefined> = {}) =>
    Object.fromEntries(
      Object.entries({
        [DEAD_LETTER_ATTRIBUTE.reason]: 'NotJson',
        [DEAD_LETTER_ATTRIBUTE.detail]: 'body is not JSON (Unexpected token)',
        [DEAD_LETTER_ATTRIBUTE.sourceMessageId]: SOURCE,
        ...over,
      })
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => [k, { DataType: 'String', StringValue: v }]),
    );
  const copy = (over: Record<string, string | undefined> = {}) => ({ Body: deadLetter.body, MessageAttributes: attrs(over) });

  it('queues a body the sender cannot parse as JSON, naming the run', () => {
    expect(() => JSON.parse(deadLetter.body)).toThrow();
    expect(() => parseNotificationBody(deadLetter.body, 262_144)).toThrow(expect.objectContaining({ reason: 'NotJson' }));
    expect(deadLetter.body).toContain('ab12cd34');
  });

  it('expects the reason NotJson, a detail and the source message id, under the sender\'s attribute names', () => {
    expect(deadLetter.attributes).toEqual({ 'notifier.failureReason': 'NotJson' });
    expect(deadLetter.presentAttributes).toEqual(['notifier.failureDetail']);
    expect(deadLetter.sourceMessageIdAttribute).toBe('notifier.sourceMessageId');
  });

  it('passes on the copy with every attribute', () => {
    expect(judgeDeadLetter(deadLetter, SOURCE, [{ Body: 'other' }, copy()]).kind).toBe('passed');
  });

  it('waits while the copy is not there', () => {
    expect(judgeDeadLetter(deadLetter, SOURCE, [{ Body: 'other', MessageAttributes: attrs() }])).toMatchObject({ kind: 'waiting' });
  });

  it('fails a copy with a wrong reason, no detail, or another source id, saying which', () => {
    expect(judgeDeadLetter(deadLetter, SOURCE, [copy({ [DEAD_LETTER_ATTRIBUTE.reason]: 'SchemaViolation' })])).toMatchObject({
      kind: 'failed',
      why: 'notifier.failureReason is SchemaViolation, expected NotJson',
    });
    expect(judgeDeadLetter(deadLetter, SOURCE, [copy({ [DEAD_LETTER_ATTRIBUTE.detail]: undefined })])).toMatchObject({
      kind: 'failed',
      why: 'notifier.failureDetail is missing',
    });
    expect(judgeDeadLetter(deadLetter, SOURCE, [copy({ [DEAD_LETTER_ATTRIBUTE.sourceMessageId]: 'other' })])).toMatchObject({
      kind: 'failed',
      why: `notifier.sourceMessageId is other, expected ${SOURCE}`,
    });
  });

  it('fails a copy the queue redrove without attributes (maxReceiveCount, not the sender)', () => {
    expect(judgeDeadLetter(deadLetter, SOURCE, [{ Body: deadLetter.body }])).toMatchObject({ kind: 'failed' });
  });
});

describe('the alarm subscriber and SetAlarmState', () => {
  const topicArn = 'arn:aws:sns:eu-west-1:123456789012:NotifierCheck-ab12cd34-alarms';
  const queueArn = 'arn:aws:sqs:eu-west-1:123456789012:NotifierCheck-ab12cd34-alarm-subscriber';

  it('lets only SNS, on behalf of the alarm topic, send to the subscriber queue', () => {
    expect(JSON.parse(subscriberQueuePolicy(queueArn, topicArn))).toEqual({
      Version: '2012-10-17',
      Statement: [
        {
          Sid: 'AlarmTopicSends',
          Effect: 'Allow',
          Principal: { Service: 'sns.amazonaws.com' },
          Action: 'sqs:SendMessage',
          Resource: queueArn,
          Condition: { ArnEquals: { 'aws:SourceArn': topicArn } },
        },
      ],
    });
  });

  it('sets the stack\'s alarm to ALARM with the run\'s reason', () => {
    expect(setAlarmStateArgs(plan.alarm, 'NotifierCheck-ab12cd34-LedgerErrors-X')).toEqual([
      'cloudwatch',
      'set-alarm-state',
      '--alarm-name',
      'NotifierCheck-ab12cd34-LedgerErrors-X',
      '--state-value',
      'ALARM',
      '--state-reason',
      plan.alarm.reason,
    ]);
    // CloudWatch limits StateReason to 1023 characters.
    expect(plan.alarm.reason.length).toBeLessThanOrEqual(1023);
  });
});
