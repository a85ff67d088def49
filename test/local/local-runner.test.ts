import { describe, expect, it } from 'vitest';
import type { LocalAws } from '../../local/aws/local-aws';
import { readInputLines, rebaseTimestamps } from '../../local/input-lines';
import type { LocalLane } from '../../local/local-lanes';
import { EXAMPLE_WITHDRAWN_CONSENT, LOCAL_STACK, runLocal } from '../../local/local-runner';
import { localLaneSenders, resolveLocalStack } from '../../local/local-stack';
import { LOCAL_TABLE_NAME } from '../../local/local-table';

describe('npm start (the local runner) on the bundled example stream, over local AWS', () => {
  it('sends each message once through the local SES and SNS (counted at the servers), suppresses the redeliveries and explains every failure', async () => {
    const lines = rebaseTimestamps(await readInputLines('examples/order-events.jsonl'), Date.now());
    const printed: string[] = [];
    let aws: LocalAws | undefined;
    let lanes: readonly LocalLane[] = [];
    const summary = await runLocal({
      lines,
      rate: 500,
      // One invocation at a time keeps the counts exact: with more, a producer retry right behind its
      // original can find the claim held and come back after the visibility timeout (retried > 0).
      concurrency: 1,
      // As npm start runs the example file: member-3 unsubscribed, member-4's number opted out.
      withdrawnConsent: EXAMPLE_WITHDRAWN_CONSENT,
      out: (l) => printed.push(l),
      err: () => undefined,
      onStarted: (started, startedLanes) => {
        aws = started;
        lanes = startedLanes;
      },
    });

    // The stack's two lanes, each sender with exactly the variables the one source gives it (synth's:
    // test/local/local-stack.test.ts), its own queue pair, the marketing events in the bulk one.
    const resolved = resolveLocalStack(LOCAL_STACK);
    const expected = localLaneSenders(resolved, {
      tableName: LOCAL_TABLE_NAME,
      queues: lanes.map((lane) => ({ queueUrl: lane.queue.queueUrl, deadLetterQueueUrl: lane.queue.dlqUrl })),
    });
    expect(lanes.map((lane) => [lane.name, lane.environment])).toEqual(expected.map((lane) => [lane.name, lane.environment]));
    expect(lanes.every((lane) => lane.source.stats.received > 0)).toBe(true);

    expect(summary).toMatchObject({
      events: 13,
      queueMessages: 19,
      messages: 24,
      // member-3's weekly offers among them: SES took it and bounced it (an unsubscribed contact).
      sent: 21,
      suppressedDuplicates: 13,
      retried: 0,
      failed: { InvalidAddress: 1, MissingTemplateField: 1 },
      unknown: 0,
      suppressed: { Unsubscribed: 1, OptedOut: 1 },
      pending: 0,
      deadLettered: { 'invalid event: UnknownMessageClass': 1, 'invalid event: NotJson': 1 },
    });
    // Counted by the providers themselves, independently of the ledger: every key exactly once.
    const emails = aws?.ses.acceptedPerKey() ?? new Map<string, number>();
    const publishes = aws?.sns.acceptedPerKey() ?? new Map<string, number>();
    expect(emails.size + publishes.size).toBe(21);
    expect([...emails.values(), ...publishes.values()].every((n) => n === 1)).toBe(true);
    expect(aws?.ses.accepted().every((e) => e.from === 'notifications@mail.shop-notifier.dev' && e.configurationSetName === 'notifier-local')).toBe(true);
    expect(new Set(aws?.sns.accepted().map((p) => p.channel))).toEqual(new Set(['sms', 'push']));
    // Order 1007 to a German, an Austrian and a Canadian French buyer: German twice, and English for the tag with no variant.
    const subjects = new Map(aws?.ses.accepted().filter((e) => e.subject.includes('1007')).map((e) => [e.to.join(','), e.subject]));
    expect(subjects).toEqual(
      new Map([
        ['buyer50@example.com', 'Ihre Bestellung 1007 wurde versandt'],
        ['buyer51@example.com', 'Ihre Bestellung 1007 wurde versandt'],
        ['buyer52@example.com', 'Your order 1007 has shipped'],
      ]),
    );

    expect(printed[0]).toMatch(/^Mailbox: http:\/\/127\.0\.0\.1:\d+\/ — open it to see what went out$/);
    // The readable print masks recipients and never shows content.
    const sends = printed.filter((l) => l.startsWith('sent'));
    expect(sends).toHaveLength(21);
    expect(sends.join('\n')).not.toMatch(/buyer17@example\.com|\+447700900117|shipped with/);
  });

  it('with the default concurrency (4 invocations at once) still reaches each provider exactly once per message', async () => {
    const lines = rebaseTimestamps(await readInputLines('examples/order-events.jsonl'), Date.now());
    let aws: LocalAws | undefined;
    const summary = await runLocal({
      lines,
      rate: 500,
      withdrawnConsent: EXAMPLE_WITHDRAWN_CONSENT,
      out: () => undefined,
      err: () => undefined,
      onStarted: (started) => {
        aws = started;
      },
    });

    expect(summary).toMatchObject({ messages: 24, sent: 21, unknown: 0, pending: 0, failed: { InvalidAddress: 1, MissingTemplateField: 1 } });
    const perKey = [...(aws?.ses.acceptedPerKey() ?? []), ...(aws?.sns.acceptedPerKey() ?? [])];
    expect(perKey).toHaveLength(21);
    expect(perKey.filter(([, n]) => n !== 1)).toEqual([]);
  });

  it('leaves no SDK endpoint variable behind', async () => {
    const before = process.env.AWS_ENDPOINT_URL_SESV2;
    await runLocal({ lines: ['not json'], rate: 1000, concurrency: 2, out: () => undefined, err: () => undefined });
    expect(process.env.AWS_ENDPOINT_URL_SESV2).toBe(before);
  });

  it('rebases occurredAt so the newest event is now, keeping the spacing and leaving other lines alone', () => {
    const lines = ['{"eventId":"a","occurredAt":"2020-01-01T00:00:00.000Z"}', 'not json', '{"eventId":"b","occurredAt":"2020-01-01T00:00:10.000Z"}'];
    const now = Date.parse('2026-11-29T12:00:00.000Z');
    const rebased = rebaseTimestamps(lines, now);
    expect(JSON.parse(rebased[0]!).occurredAt).toBe('2026-11-29T11:59:50.000Z');
    expect(rebased[1]).toBe('not json');
    expect(JSON.parse(rebased[2]!).occurredAt).toBe('2026-11-29T12:00:00.000Z');
  });
});
