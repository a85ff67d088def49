import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readOutbox } from '../../functions/adapters/outbox-provider';
import { readInputLines, rebaseTimestamps } from '../../local/input-lines';
import { runLocal } from '../../local/local-runner';

describe('npm start (the local runner) on the bundled example stream', () => {
  it('sends each message once, suppresses the redeliveries and explains every failure', async () => {
    const lines = rebaseTimestamps(await readInputLines('examples/order-events.jsonl'), Date.now());
    const outboxFile = join(mkdtempSync(join(tmpdir(), 'notifier-run-')), 'outbox.jsonl');
    const printed: string[] = [];
    const summary = await runLocal({ lines, outboxFile, rate: 500, concurrency: 1, out: (l) => printed.push(l), err: () => undefined });

    const calls = await readOutbox(outboxFile);
    expect(new Set(calls.map((c) => c.key)).size).toBe(calls.length);
    expect(summary).toMatchObject({
      events: 11,
      queueMessages: 17,
      messages: 20,
      sent: 18,
      suppressedDuplicates: 13,
      failed: { InvalidAddress: 1, MissingTemplateField: 1 },
      unknown: 0,
      pending: 0,
      deadLettered: { 'invalid event: UnknownMessageClass': 1, 'invalid event: NotJson': 1 },
    });
    // The readable print masks recipients and never shows content.
    const sends = printed.filter((l) => l.startsWith('sent'));
    expect(sends).toHaveLength(18);
    expect(sends.join('\n')).not.toMatch(/buyer17@example\.com|\+447700900117|shipped with/);
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
