import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readOutbox } from '../../functions/adapters/outbox-provider';
import { SHIPPED_SMS_COUNTRIES_IDENTIFIER } from '../../functions/delivery/shipped-sms-countries';
import { smsCountryTable } from '../../lib/sms-countries';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { lambdaContext } from '../support/sqs-event';
import { seedDeadClaims } from './reclaimer-harness';
import { tempDir } from '../support/temp-dir';

const db = useTestLedger();
afterAll(() => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

/** What EventBridge Scheduler / a schedule rule sends; the reclaimer ignores it. */
const scheduledEvent = {
  version: '0',
  id: 'b4f6b6a0-0000-4000-8000-000000000000',
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '123456789012',
  time: '2026-11-29T12:00:00Z',
  region: 'us-east-1',
  resources: ['arn:aws:events:us-east-1:123456789012:rule/notifier-reclaimer'],
  detail: {},
};

function stubSenderEnv(outboxFile: string) {
  vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', db.endpoint);
  vi.stubEnv('LEDGER_TABLE_NAME', db.tableName);
  vi.stubEnv('FUNCTION_TIMEOUT_SECONDS', '30');
  vi.stubEnv('CLAIM_TIMEOUT_SECONDS', '120');
  vi.stubEnv('DELIVERY_MODE', 'outbox');
  vi.stubEnv('OUTBOX_FILE', outboxFile);
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
  vi.stubEnv('POWERTOOLS_DEV', 'true');
  // What synth embeds in the bundle (lib/destination-options.ts); unbundled, a global.
  vi.stubGlobal(SHIPPED_SMS_COUNTRIES_IDENTIFIER, smsCountryTable(['US']));
}

describe('the reclaimer Lambda entry (functions/reclaimer/handler.ts), configured only through its environment', () => {
  it('fails its cold start on a time budget the function timeout cannot hold', async () => {
    vi.resetModules();
    stubSenderEnv('/tmp/unused');
    vi.stubEnv('RECLAIMER_TIME_BUDGET_MS', '29000');
    await expect(import('../../functions/reclaimer/handler')).rejects.toThrow(/RECLAIMER_TIME_BUDGET_MS \(29000ms\) must be at most/);
    vi.unstubAllEnvs();
  });

  it('settles a stale row on a scheduled invocation, logging no address or content', async () => {
    if (db.endpoint === 'aws') return; // needs the SDK's standard endpoint variable to point at loopback
    const outboxFile = join(tempDir('notifier-reclaimer-entry-'), 'outbox.jsonl');
    const [row] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId: 'evt-reclaimer-entry' }), Date.now() - 10 * 60_000);
    vi.resetModules();
    stubSenderEnv(outboxFile);
    const { handler } = await import('../../functions/reclaimer/handler');

    const written: string[] = [];
    const capture = (...args: unknown[]) => void written.push(args.map(String).join(' '));
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation(capture));
    const summary = await handler(scheduledEvent, lambdaContext());
    for (const spy of spies) spy.mockRestore();

    expect(summary).toMatchObject({ found: 1, resent: 1, stoppedEarly: false });
    expect((await db.ledger.get(row!.key))?.state).toBe('SENT');
    expect((await readOutbox(outboxFile)).map((l) => l.key)).toEqual([row!.key]);
    const logs = written.join('');
    expect(logs).toMatch(/"message":\s*"Stale PENDING row found"/);
    expect(logs).toMatch(/"service":\s*"reclaimer"/);
    for (const secret of ['+14155550101', '482913', 'sign-in code']) expect(logs).not.toContain(secret);
  });
});
