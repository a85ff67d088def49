import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readOutbox } from '../../functions/adapters/outbox-provider';
import { DEFAULT_TEMPLATES_DIR, readTemplateFiles } from '../../functions/adapters/template-directory';
import { SHIPPED_SMS_COUNTRIES_IDENTIFIER } from '../../functions/delivery/shipped-sms-countries';
import { buildTemplateRegistry } from '../../functions/core/template-checks/template-registry';
import { SHIPPED_TEMPLATES_IDENTIFIER, shippedTemplatesOf } from '../../functions/sender/shipped-templates';
import { smsCountryTable } from '../../lib/sms-countries';
import { loginCodeEvent } from '../support/events';
import { startFakeSqs } from '../support/fake-sqs';
import { startTestLedger, type TestLedger } from '../support/ledger-server';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-event';
import { tempDir } from '../support/temp-dir';

let db: TestLedger;
let sqs: Awaited<ReturnType<typeof startFakeSqs>>;
beforeAll(async () => {
  db = await startTestLedger();
  sqs = await startFakeSqs();
});
afterAll(async () => {
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
  await sqs.close();
  await db.stop();
});

/**
 * Synth embeds the checked templates in the bundle (esbuild `define`); unbundled, the module reads the same
 * identifier as a global, which stands in for the embedding here.
 */
function embedTemplates(shipped: unknown = shippedTemplatesOf(buildTemplateRegistry(readTemplateFiles(DEFAULT_TEMPLATES_DIR)).values())): void {
  vi.stubGlobal(SHIPPED_TEMPLATES_IDENTIFIER, shipped);
}

describe('the Lambda entry module (functions/sender/handler.ts), configured only through its environment', () => {
  it('fails its cold start on templates synth did not check (the raw files), before it reads its configuration', async () => {
    vi.resetModules();
    embedTemplates([...readTemplateFiles(DEFAULT_TEMPLATES_DIR), { name: 'bad.json', text: '{"fields":{},"sms":{"text":"{{code}}"}}' }]);
    await expect(import('../../functions/sender/handler')).rejects.toThrow(
      /embeds something other than the templates synth checked \(__NOTIFIER_TEMPLATES__ is not notifier-checked-templates\/1\)/,
    );
    vi.unstubAllGlobals();
  });

  /** A fresh import of the entry, templates embedded, in outbox mode with these timeouts. */
  function coldStartInOutboxMode(timeouts: { functionTimeoutSeconds: string; claimTimeoutSeconds: string }) {
    vi.resetModules();
    embedTemplates();
    vi.stubEnv('LEDGER_TABLE_NAME', db.tableName);
    vi.stubEnv('FUNCTION_TIMEOUT_SECONDS', timeouts.functionTimeoutSeconds);
    vi.stubEnv('CLAIM_TIMEOUT_SECONDS', timeouts.claimTimeoutSeconds);
    vi.stubEnv('DELIVERY_MODE', 'outbox');
    vi.stubEnv('OUTBOX_FILE', '/tmp/unused');
  }

  it('fails its cold start when the bundle holds no templates', async () => {
    vi.resetModules();
    await expect(import('../../functions/sender/handler')).rejects.toThrow(/No templates were embedded in this bundle/);
  });

  it('fails its cold start on an unsafe configuration', async () => {
    coldStartInOutboxMode({ functionTimeoutSeconds: '60', claimTimeoutSeconds: '45' });
    await expect(import('../../functions/sender/handler')).rejects.toThrow(/claim timeout \(45s\) must exceed .* \(60s\)/);
    vi.unstubAllEnvs();
  });

  it('fails its cold start without a dead-letter queue, even in outbox mode, which the configuration alone allows', async () => {
    coldStartInOutboxMode({ functionTimeoutSeconds: '30', claimTimeoutSeconds: '120' });
    vi.stubEnv('DEAD_LETTER_QUEUE_URL', undefined);
    await expect(import('../../functions/sender/handler')).rejects.toMatchObject({
      name: 'ConfigurationError',
      message: 'DEAD_LETTER_QUEUE_URL is required for the Lambda sender',
    });
    vi.unstubAllEnvs();
  });

  it('sends through the outbox, records in the ledger and dead-letters bad input to SQS with its reason', async () => {
    if (db.endpoint === 'aws') return; // needs the SDK's standard endpoint variables to point at loopback servers
    const outboxFile = join(tempDir('notifier-entry-'), 'outbox.jsonl');
    vi.resetModules();
    // The SMS countries synth embeds (lib/destination-options.ts); unbundled, a global.
    vi.stubGlobal(SHIPPED_SMS_COUNTRIES_IDENTIFIER, smsCountryTable(['US']));
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', db.endpoint);
    vi.stubEnv('AWS_ENDPOINT_URL_SQS', sqs.endpoint);
    vi.stubEnv('LEDGER_TABLE_NAME', db.tableName);
    vi.stubEnv('FUNCTION_TIMEOUT_SECONDS', '30');
    vi.stubEnv('CLAIM_TIMEOUT_SECONDS', '120');
    vi.stubEnv('DELIVERY_MODE', 'outbox');
    vi.stubEnv('OUTBOX_FILE', outboxFile);
    vi.stubEnv('DEAD_LETTER_QUEUE_URL', `${sqs.endpoint}/123456789012/notifications-dlq`);
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    vi.stubEnv('POWERTOOLS_DEV', 'true');
    embedTemplates();
    const { handler } = await import('../../functions/sender/handler');

    const good = sqsRecord(JSON.stringify(loginCodeEvent({ eventId: 'evt-entry', occurredAt: new Date().toISOString() })));
    const badPhone = loginCodeEvent({ eventId: 'evt-entry-bad-phone', occurredAt: new Date().toISOString() });
    badPhone.recipients[0] = { ...badPhone.recipients[0]!, phone: '+1 415 555 0199 ext 7' };
    const bad = sqsRecord('{"not": "an event", "email": "leak@example.com"}');

    // POWERTOOLS_DEV (stubbed above) makes the logger write through the global console, which we capture.
    const written: string[] = [];
    const capture = (...args: unknown[]) => {
      written.push(args.map(String).join(' '));
    };
    const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation(capture));
    const response = await handler(sqsEvent(good, sqsRecord(JSON.stringify(badPhone)), bad), lambdaContext());
    for (const spy of spies) spy.mockRestore();

    // Structured JSON logs, and no address or message body in them.
    const logs = written.join('');
    expect(logs).toMatch(/"message":\s*"Invalid event moved to the dead-letter queue"/);
    expect(logs).toMatch(/"message":\s*"Message cannot be sent"/);
    for (const secret of ['leak@example.com', '+14155550101', '415 555 0199', '482913', 'sign-in code']) {
      expect(logs).not.toContain(secret);
    }

    expect(response.batchItemFailures).toEqual([]);
    expect((await readOutbox(outboxFile)).map((l) => l.message.channel)).toEqual(['sms']);
    const [dead] = sqs.sent();
    expect(dead?.MessageBody).toBe('{"not": "an event", "email": "leak@example.com"}');
    expect(dead?.MessageAttributes['notifier.failureReason']?.StringValue).toBe('SchemaViolation');
    expect(dead?.MessageAttributes['notifier.sourceMessageId']?.StringValue).toBe(bad.messageId);
  });
});
