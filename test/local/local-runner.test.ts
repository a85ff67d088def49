import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LocalAws } from '../../local/aws/local-aws';
import { readInputLines, rebaseTimestamps } from '../../local/input-lines';
import type { LocalLane } from '../../local/local-lanes';
import { EXAMPLE_SEEDS, formatLocalSummary, LOCAL_STACK, runLocal, type LocalRunSummary } from '../../local/local-runner';
import { localLaneSenders, resolveLocalStack } from '../../local/local-stack';
import { LOCAL_TABLE_NAME } from '../../local/local-table';
import { scanLedger } from '../../local/senders/this-sender';
import { EXAMPLE_RUN } from '../support/example-run';

/**
 * The summary's counts that differ from run to run of the example (docs/local-tools.md says why): with 4 invocations at
 * once a producer retry right behind its original may find the claim held and come back, and an e-mail's delivery
 * evidence may reach its row before or after it settles (one outcome event or two).
 */
const VARYING = ['duplicates suppressed', 'received again', '  handed back', '  in invocations that timed out', 'outcome events'] as const;

/** The summary block of docs/local-tools.md's sample run: from its `summary  count` header to the blank line. */
function documentedSummary(page: string): string {
  const start = page.search(/^summary +count$/m);
  if (start < 0) throw new Error('docs/local-tools.md shows no summary');
  return page.slice(start, page.indexOf('\n\n', start));
}

/** A printed summary's rows, label (trimmed, with its indent) to count, in any order. */
function summaryRows(table: string): Map<string, number> {
  const rows = new Map<string, number>();
  for (const line of table.split('\n').slice(2)) {
    const match = /^(.*?)\s+(\d+)$/.exec(line);
    if (match) rows.set(match[1]!, Number(match[2]));
  }
  return rows;
}

/** SENT + FAILED + UNKNOWN + SUPPRESSED + PENDING: each ledger row in exactly one. */
function finalStateTotal(s: LocalRunSummary): number {
  const total = (counts: Readonly<Record<string, number>>) => Object.values(counts).reduce((a, b) => a + b, 0);
  return s.sent + total(s.failed) + s.unknown + total(s.suppressed) + s.pending;
}

describe('npm start (the local runner) on the bundled example stream, over local AWS', () => {
  it('sends each message once through the local SES and SNS (counted at the servers), suppresses the redeliveries and explains every failure', async () => {
    const lines = rebaseTimestamps(await readInputLines('examples/order-events.jsonl'), Date.now());
    const printed: string[] = [];
    let aws: LocalAws | undefined;
    let lanes: readonly LocalLane[] = [];
    let ledgerUrl = '';
    const pages: string[] = [];
    let rows: readonly { readonly channel: string; readonly state: string; readonly deliveryStatus?: string; readonly deliveryStatusSource?: string }[] = [];
    const summary = await runLocal({
      lines,
      ...EXAMPLE_RUN,
      out: (l) => printed.push(l),
      err: () => undefined,
      onStarted: (started, startedLanes, ledgerPage) => {
        aws = started;
        lanes = startedLanes;
        ledgerUrl = ledgerPage.url;
      },
      beforeStop: async () => {
        for (const url of [aws!.ses.mailboxUrl, aws!.sns.outboxUrl, ledgerUrl]) pages.push(await (await fetch(url)).text());
        rows = [...(await scanLedger({ adminClient: aws!.dynamo.client() }, LOCAL_TABLE_NAME)).values()];
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
      events: 14,
      queueMessages: 20,
      // Order 1008 is three messages: buyer-60's push (refused, its endpoint disabled) and the e-mail in its place;
      // buyer-61's e-mail, delivered, so no text after it.
      messages: 27,
      // Each message once, in its final state: member-3's weekly offers is not among the SENT. SES took it and
      // bounced it (an unsubscribed contact), so the row ends SUPPRESSED Unsubscribed.
      sent: 22,
      suppressedAfterAcceptance: 1,
      // What the providers accepted: the 22 SENT (buyer-60's fallback e-mail among them) and member-3's e-mail.
      providerAccepted: 23,
      // buyer-60's push: SNS refused it (EndpointDisabled), certainly undelivered; the e-mail went instead.
      failed: { EndpointDisabledException: 1, InvalidAddress: 1, MissingTemplateField: 1 },
      unknown: 0,
      suppressed: { Unsubscribed: 1, OptedOut: 1 },
      pending: 0,
      deadLettered: { 'invalid event: UnknownMessageClass': 1, 'invalid event: NotJson': 1 },
    });
    // One invocation at a time, so a record comes back only when its sender handed it back (counted and logged with
    // its reason) or its whole invocation failed: on a quiet machine neither happens; on a loaded one a batch's last
    // records may find too little of the invocation left for a delivery (`out-of-time`) and come back once each. Every
    // handed-back record is received again; a record may be both handed back and in an invocation killed after it.
    expect(summary.retried).toBeGreaterThanOrEqual(summary.handedBack);
    expect(summary.retried).toBeLessThanOrEqual(summary.handedBack + summary.inFailedInvocations);
    // The producer retries and replays, each found settled; a message of a handed-back record that settled before the
    // hand-back is found settled again when the record returns, one more each.
    if (summary.handedBack === 0) expect(summary.suppressedDuplicates).toBe(13);
    else expect(summary.suppressedDuplicates).toBeGreaterThanOrEqual(13);
    // Counted by the providers themselves, independently of the ledger: every key exactly once.
    const emails = aws?.ses.acceptedPerKey() ?? new Map<string, number>();
    const publishes = aws?.sns.acceptedPerKey() ?? new Map<string, number>();
    expect(emails.size + publishes.size).toBe(23);
    expect([...emails.values(), ...publishes.values()].every((n) => n === 1)).toBe(true);
    // Each e-mail in its lane's configuration set (issue 48: the bulk tenant's own reputation metrics and events).
    expect(aws?.ses.accepted().every((e) => e.from === 'notifications@mail.shop-notifier.dev' && ['notifier-local', 'notifier-local-bulk'].includes(e.configurationSetName ?? ''))).toBe(true);
    expect(new Set(aws?.sns.accepted().map((p) => p.channel))).toEqual(new Set(['sms', 'push']));
    // SES's events took the stack's path (topic -> queue -> status event source): every e-mail SENT carries its Delivery.
    const sentEmails = rows.filter((row) => row.channel === 'email' && row.state === 'SENT');
    expect(sentEmails.length).toBeGreaterThan(0);
    expect(sentEmails.map((row) => [row.deliveryStatus, row.deliveryStatusSource])).toEqual(sentEmails.map(() => ['Delivery', 'ses']));
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
    expect(finalStateTotal(summary)).toBe(summary.messages);
    // The readable print masks recipients and never shows content; a line says what the provider did (accepted).
    expect(printed.filter((l) => l.startsWith('sent'))).toEqual([]);
    const sends = printed.filter((l) => l.startsWith('accepted'));
    expect(sends).toHaveLength(23);
    expect(sends.join('\n')).not.toMatch(/buyer17@example\.com|\+447700900117|shipped with/);

    // Each page says what it shows; the ledger page has every message with its state and reason as `ledger show` words them.
    const [mailbox = '', outbox = '', ledger = ''] = pages;
    expect(mailbox).toMatch(/<h1>Local SES v2: the e-mails it delivered<\/h1>\s*<p>Every e-mail/);
    expect(outbox).toMatch(/<h1>Local SNS: SMS and push published<\/h1>\s*<p>Every SMS and push/);
    expect(ledger).toMatch(/<h1>Local ledger: what the sender decided for each message<\/h1>\s*<p>One row per message/);
    expect(ledger.match(/<details><summary>ledger show<\/summary>/g)).toHaveLength(summary.messages);
    expect(ledger).toContain('<td>SUPPRESSED Unsubscribed (the provider took it and did not deliver it)</td>');
    expect(ledger).toContain('<td>SUPPRESSED OptedOut (never sent)</td>');
    expect(ledger.match(/<td>SENT<\/td>/g)).toHaveLength(summary.sent);
    expect(ledger).not.toMatch(/member3@example\.com|\+14155550199/);
    expect(printed).toContain(`Ledger: ${ledgerUrl} — each message's state and reason, as npx notifier ledger show gives them`);
  });

  it('with the default concurrency (4 invocations at once) still reaches each provider exactly once per message', async () => {
    const lines = rebaseTimestamps(await readInputLines('examples/order-events.jsonl'), Date.now());
    let aws: LocalAws | undefined;
    const summary = await runLocal({
      lines,
      rate: 500,
      ...EXAMPLE_SEEDS,
      out: () => undefined,
      err: () => undefined,
      onStarted: (started) => {
        aws = started;
      },
    });

    expect(summary).toMatchObject({ messages: 27, sent: 22, providerAccepted: 23, unknown: 0, pending: 0, failed: { EndpointDisabledException: 1, InvalidAddress: 1, MissingTemplateField: 1 } });
    expect(finalStateTotal(summary)).toBe(summary.messages);
    const perKey = [...(aws?.ses.acceptedPerKey() ?? []), ...(aws?.sns.acceptedPerKey() ?? [])];
    expect(perKey).toHaveLength(23);
    expect(perKey.filter(([, n]) => n !== 1)).toEqual([]);

    // docs/local-tools.md shows this run's summary: every line as printed, but for the counts its prose says vary.
    const documented = summaryRows(documentedSummary(readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'local-tools.md'), 'utf8')));
    const measured = summaryRows(formatLocalSummary(summary));
    const steady = (rows: Map<string, number>) => new Map([...rows].filter(([label]) => !VARYING.some((prefix) => label.startsWith(prefix))));
    expect(steady(documented)).toEqual(steady(measured));
    for (const prefix of VARYING) expect([...documented.keys()].some((label) => label.startsWith(prefix)), prefix).toBe(true);
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

  it('prints a summary whose message lines add up to the messages, each in its final state (the defect: sent 18 + failed 2 + suppressed 2 = 22 of 21)', () => {
    const summary: LocalRunSummary = {
      events: 12,
      queueMessages: 18,
      messages: 21,
      sent: 17,
      failed: { InvalidAddress: 1, MissingTemplateField: 1 },
      unknown: 0,
      suppressed: { Unsubscribed: 1, OptedOut: 1 },
      suppressedAfterAcceptance: 1,
      pending: 0,
      heldForQuietHours: 0,
      providerAccepted: 18,
      suppressedDuplicates: 13,
      retried: 0,
      handedBack: 0,
      inFailedInvocations: 0,
      deadLettered: { 'invalid event: NotJson': 1 },
      smsDeliveryLogs: { handedOver: 4, failedBatches: 1, refusedTooLarge: 0 },
    };
    const lines = formatLocalSummary(summary).split('\n');
    const count = (label: RegExp) => Number(/(\d+)\s*$/.exec(lines.find((l) => label.test(l)) ?? '')?.[1]);
    expect(count(/^messages /)).toBe(21);
    // The state lines, two spaces in, each a final state of the ledger.
    const states = lines.filter((l) => /^ {2}(SENT|FAILED|UNKNOWN|SUPPRESSED|PENDING)\b/.test(l));
    expect(states.map((l) => l.trim().split(/\s/)[0])).toEqual(['SENT', 'FAILED', 'UNKNOWN', 'SUPPRESSED', 'PENDING']);
    expect(states.reduce((sum, l) => sum + Number(/(\d+)\s*$/.exec(l)?.[1]), 0)).toBe(21);
    expect(count(/^ {4}of which the provider accepted and did not deliver/)).toBe(1);
    expect(count(/^provider sends accepted/)).toBe(18);
    // A batch of delivery logs Lambda gave up on is evidence the ledger never got: the summary says so.
    expect(count(/^SMS delivery-status log lines handed to the status function/)).toBe(4);
    expect(count(/^ {2}batches sent to the failure destination/)).toBe(1);
  });
});
