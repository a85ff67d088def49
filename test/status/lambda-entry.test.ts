import { afterAll, describe, expect, it, vi } from 'vitest';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { lambdaContext } from '../support/sqs-event';
import { seedDeadClaims } from '../reclaimer/reclaimer-harness';
import { RECIPIENT_EMAIL, sesEvent, snsEvent } from './status-fixtures';

const db = useTestLedger();
afterAll(() => {
  vi.unstubAllEnvs();
});

describe('the status Lambda entry (functions/status/handler.ts)', () => {
  it('needs LEDGER_TABLE_NAME', async () => {
    vi.resetModules();
    vi.stubEnv('LEDGER_TABLE_NAME', '');
    await expect(import('../../functions/status/handler')).rejects.toThrow(/LEDGER_TABLE_NAME must name the ledger table/);
    vi.unstubAllEnvs();
  });

  it('records an SES event from SNS, logging no address', async () => {
    if (db.endpoint === 'aws') return;
    const event = loginCodeEvent({
      eventId: 'evt-status-entry',
      recipients: [{ recipientId: 'user-9', email: RECIPIENT_EMAIL, channels: ['email'] }],
    });
    const [row] = await seedDeadClaims(db.ledger, event, Date.now());
    vi.resetModules();
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', db.endpoint);
    vi.stubEnv('LEDGER_TABLE_NAME', db.tableName);
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    vi.stubEnv('POWERTOOLS_DEV', 'true');
    const { handler } = await import('../../functions/status/handler');

    const written: string[] = [];
    const capture = (...args: unknown[]) => void written.push(args.map(String).join(' '));
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation(capture));
    const summary = await handler(snsEvent(sesEvent('Delivery', { key: row!.key, mailAt: new Date().toISOString() })), lambdaContext());
    for (const spy of spies) spy.mockRestore();

    expect(summary).toMatchObject({ kind: 'sns', recorded: 1 });
    expect((await db.ledger.get(row!.key))?.deliveryStatus).toBe('Delivery');
    const logs = written.join('');
    expect(logs).toMatch(/"message":\s*"Delivery status recorded"/);
    expect(logs).not.toContain(RECIPIENT_EMAIL);
  });
});
