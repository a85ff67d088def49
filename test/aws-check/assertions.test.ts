import { describe, expect, it } from 'vitest';
import { finalVerdict, judgeMessage, judgeRun, type ObservedRow, reportLines } from '../../scripts/aws-check/assertions';
import { planAwsCheck } from '../../scripts/aws-check/plan';

const plan = planAwsCheck({ runId: 'ab12cd34', emailFrom: 'check@mail.acme-notifier.dev', nowIso: '2026-11-30T15:00:00.000Z' });
const [success, bounce, complaint] = plan.expected as [(typeof plan.expected)[number], (typeof plan.expected)[number], (typeof plan.expected)[number]];
const reclaimed = plan.reclaim.expected;

const row = (expected: typeof success, overrides: Partial<ObservedRow> = {}): ObservedRow => ({
  key: `key-${expected.recipientId}`,
  eventId: expected.eventId,
  recipientId: expected.recipientId,
  channel: expected.channel,
  state: 'SENT',
  providerMessageId: `ses-${expected.recipientId}`,
  deliveryStatus: expected.finalStatus,
  claimVersion: expected.takenOver ? 2 : 1,
  ...overrides,
});

describe('judging one message', () => {
  it('passes a single SENT row with a provider id and the final status', () => {
    expect(judgeMessage(success, [row(success)]).kind).toBe('passed');
  });

  it('waits while there is no row, the row is PENDING, or the status is none yet or on its way', () => {
    expect(judgeMessage(success, [])).toMatchObject({ kind: 'waiting', why: 'no ledger row yet' });
    expect(judgeMessage(success, [row(success, { state: 'PENDING' })])).toMatchObject({ kind: 'waiting' });
    expect(judgeMessage(success, [row(success, { deliveryStatus: undefined })])).toMatchObject({ kind: 'waiting' });
    expect(judgeMessage(complaint, [row(complaint, { deliveryStatus: 'Delivery' })])).toMatchObject({
      kind: 'waiting',
      why: 'delivery status Delivery, waiting for Complaint',
    });
  });

  it('fails if the message was sent twice (two rows)', () => {
    expect(judgeMessage(success, [row(success), row(success, { key: 'other' })])).toMatchObject({
      kind: 'failed',
      why: '2 ledger rows for one message (expected one)',
    });
  });

  it('fails if the row ended other than SENT, or SENT without a provider id', () => {
    expect(judgeMessage(bounce, [row(bounce, { state: 'FAILED' })])).toMatchObject({ kind: 'failed', why: 'row ended FAILED, expected SENT' });
    expect(judgeMessage(bounce, [row(bounce, { providerMessageId: undefined })])).toMatchObject({ kind: 'failed' });
  });

  it('fails on an unexpected final status (a bounce for the success address)', () => {
    expect(judgeMessage(success, [row(success, { deliveryStatus: 'Bounce' })])).toMatchObject({
      kind: 'failed',
      why: 'delivery status Bounce, expected Delivery',
    });
  });

  it('ignores rows of other events, recipients and channels', () => {
    expect(judgeMessage(success, [row(bounce), row(success, { channel: 'sms' })]).kind).toBe('waiting');
  });
});

describe('judging a run', () => {
  const rows = [row(success), row(bounce), row(complaint), row(reclaimed)];

  it('is done and passed when every message passed', () => {
    expect(judgeRun(plan.expected, rows)).toMatchObject({ done: true, passed: true });
  });

  it('is not done while one message waits', () => {
    const verdict = judgeRun(plan.expected, [...rows.slice(0, 2), row(reclaimed)]);
    expect(verdict).toMatchObject({ done: false, passed: false });
    expect(finalVerdict(verdict)).toMatchObject({ done: true, passed: false });
    expect(reportLines(finalVerdict(verdict))[2]).toMatch(/^FAIL email to complaint .*: timed out: no ledger row yet$/);
  });

  it('is done but failed as soon as one message failed and none waits', () => {
    expect(judgeRun(plan.expected, [...rows.slice(0, 2), row(complaint, { state: 'UNKNOWN' }), row(reclaimed)])).toMatchObject({ done: true, passed: false });
  });

  it('reports one line per message', () => {
    expect(reportLines(judgeRun(plan.expected, rows))).toEqual([
      'PASS email to success (sent once although queued twice, and SES delivery evidence reached its row)',
      'PASS email to bounce (a hard bounce reaches the row)',
      'PASS email to complaint (a complaint after delivery reaches the row)',
      `PASS email to reclaim (${reclaimed.proves})`,
    ]);
  });
});

describe('judging the reclaimer\'s resend', () => {
  const reclaim = plan.reclaim.expected;

  it('is one of the messages the run waits for', () => {
    expect(plan.expected).toContain(reclaim);
    expect(reclaim.takenOver).toBe(true);
  });

  it('passes a row the reclaimer took over and sent, with its delivery evidence', () => {
    expect(judgeMessage(reclaim, [row(reclaim, { key: plan.reclaim.row.key })]).kind).toBe('passed');
  });

  it('waits while the planted claim is still PENDING', () => {
    expect(judgeMessage(reclaim, [row(reclaim, { state: 'PENDING', claimVersion: 1 })])).toMatchObject({ kind: 'waiting', why: 'row still PENDING' });
  });

  it('fails a SENT row that was never taken over (claim version 1)', () => {
    expect(judgeMessage(reclaim, [row(reclaim, { claimVersion: 1 })])).toMatchObject({ kind: 'failed', why: 'SENT by its first claim, never taken over' });
  });

  it('does not ask ordinary messages to be taken over', () => {
    expect(judgeMessage(success, [row(success, { claimVersion: 1 })]).kind).toBe('passed');
  });
});
