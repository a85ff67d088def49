import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATES_DIR } from '../../functions/adapters/template-directory';
import type { LocalAws } from '../../local/aws/local-aws';
import { runLocal } from '../../local/local-runner';
import { tempDir } from '../support/temp-dir';

describe('npm start with a template added as a file', () => {
  it('renders and sends it, with no code change', async () => {
    const dir = join(tempDir('notifier-local-templates-'), 'templates');
    cpSync(DEFAULT_TEMPLATES_DIR, dir, { recursive: true });
    writeFileSync(
      join(dir, 'parcel-delayed.json'),
      JSON.stringify({
        fields: { orderId: { maxLength: 32 } },
        email: { subject: 'Order {{orderId}} is delayed', text: 'Sorry: order {{orderId}} will arrive a day late.' },
      }),
    );
    const event = {
      eventId: 'evt-parcel-delayed-1',
      occurredAt: new Date().toISOString(),
      type: 'ParcelDelayed',
      templateId: 'parcel-delayed',
      messageClass: 'transactional',
      data: { orderId: '1001' },
      recipients: [{ recipientId: 'buyer-17', email: 'buyer17@example.com', channels: ['email'] }],
    };
    let aws: LocalAws | undefined;
    const summary = await runLocal({
      lines: [JSON.stringify(event)],
      templatesDir: dir,
      concurrency: 1,
      out: () => undefined,
      err: () => undefined,
      onStarted: (started) => {
        aws = started;
      },
    });
    expect(summary).toMatchObject({ messages: 1, sent: 1, failed: {} });
    expect(aws?.ses.accepted().map((e) => e.subject)).toEqual(['Order 1001 is delayed']);
  }, 60_000);

  it('refuses to start on an invalid templates folder, as the Lambda refuses its cold start', async () => {
    const dir = tempDir('notifier-local-templates-');
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ fields: {}, sms: { text: '{{x}}' } }));
    await expect(runLocal({ lines: [], templatesDir: dir, out: () => undefined, err: () => undefined })).rejects.toThrow(
      '1 template problem: bad.json sms.text: uses {{x}}, which is not declared in fields',
    );
  }, 60_000);
});
