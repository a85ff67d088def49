import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../cli/ledger-command';
import { keyPrefix } from '../../functions/core/event/idempotency-key';
import { loginCodeEvent } from '../support/events';
import { runLocal } from '../../local/local-runner';
import { tempDir } from '../support/temp-dir';

describe('notifier ledger --local: the support look-up on a local run\'s own data', () => {
  it('reads the ledger `npm start -- --data DIR` kept, by event and by key', async () => {
    const dataDir = join(tempDir('notifier-local-ledger-'), 'ledger');
    const event = loginCodeEvent({ eventId: 'evt-local-lookup', occurredAt: new Date().toISOString() });
    const runPrinted: string[] = [];
    await runLocal({ lines: [JSON.stringify(event)], dataDir, concurrency: 1, out: (l) => void runPrinted.push(l), err: () => undefined });

    const printed: string[] = [];
    const io = { out: (t: string) => void printed.push(t), err: (t: string) => void printed.push(t), env: {} };
    expect(await run(['event', 'evt-local-lookup', '--local', dataDir], io)).toBe(0);
    const text = printed.join('');
    expect(text).toMatch(/SENT/);
    expect(text).not.toMatch(/\+14155550101/); // addresses stay masked
    const key = /\b([0-9a-f]{64})\b/.exec(text)?.[1];
    expect(key).toBeDefined();
    // The run printed the key short, as the key's first characters: the same key `ledger event` shows in full.
    const short = / key ([0-9a-f]+)$/.exec(runPrinted.find((l) => l.startsWith('accepted')) ?? '')?.[1];
    expect(short).toBe(keyPrefix(key!));
    expect(key!.startsWith(short!)).toBe(true);

    printed.length = 0;
    expect(await run(['show', key!, '--local', dataDir, '--json'], io)).toBe(0);
    expect(JSON.parse(printed.join(''))).toMatchObject({ state: 'SENT', eventId: 'evt-local-lookup' });
  }, 60_000);

  it('ledger show says the locale the message was written in: a de-AT recipient\'s row records de', async () => {
    const dataDir = join(tempDir('notifier-local-ledger-'), 'ledger');
    const base = loginCodeEvent({ eventId: 'evt-local-locale', occurredAt: new Date().toISOString() });
    const event = { ...base, recipients: [{ ...base.recipients[0]!, locale: 'de-AT' }] };
    await runLocal({ lines: [JSON.stringify(event)], dataDir, concurrency: 1, out: () => undefined, err: () => undefined });
    const printed: string[] = [];
    const io = { out: (t: string) => void printed.push(t), err: (t: string) => void printed.push(t), env: {} };
    expect(await run(['event', 'evt-local-locale', '--local', dataDir], io)).toBe(0);
    const key = /\b([0-9a-f]{64})\b/.exec(printed.join(''))?.[1];
    printed.length = 0;
    expect(await run(['show', key!, '--local', dataDir], io)).toBe(0);
    expect(printed.join('')).toContain('message              sms, class otp, template login-code in de\n');
    printed.length = 0;
    expect(await run(['show', key!, '--local', dataDir, '--json'], io)).toBe(0);
    expect(JSON.parse(printed.join(''))).toMatchObject({ state: 'SENT', locale: 'de' });
  }, 60_000);

  it('says how to make a local ledger when the folder does not exist', async () => {
    const printed: string[] = [];
    const code = await run(['event', 'e', '--local', join(tmpdir(), 'no-such-notifier-ledger')], {
      out: (t) => void printed.push(t),
      err: (t) => void printed.push(t),
      env: {},
    });
    expect(code).toBe(1);
    expect(printed.join('')).toMatch(/npm start -- --data/);
  });
});
