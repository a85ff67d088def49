import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SesEmailProvider } from '../../functions/adapters/ses-email-provider';
import { startLocalSes } from '../../local/aws/local-ses';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS } from '../../local/local-dynamo';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';

/** Debian's Chromium; CI machines have only npm, so without it this test is skipped, saying so. */
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const title = hasChromium
  ? 'shows an e-mail sent through SES v2 in a real headless Chromium'
  : `SKIPPED: ${CHROMIUM} is not installed (apt-get install chromium); the mailbox page was not opened in a browser`;
if (!hasChromium) console.warn(`mailbox-page.test.ts ${title}`);

/** Flags that keep Chromium off the network: no background services, no DNS beyond loopback. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

describe('the local SES mailbox page (what `npm start` prints as "Mailbox:")', () => {
  it.skipIf(!hasChromium)(title, { timeout: 90_000 }, async () => {
    const ses = await startLocalSes();
    const profile = mkdtempSync(join(tmpdir(), 'notifier-chromium-'));
    const browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    try {
      const client = new SESv2Client({ endpoint: ses.endpoint, region: LOCAL_REGION, credentials: LOOPBACK_CREDENTIALS, maxAttempts: 1 });
      const provider = new SesEmailProvider(client, { fromAddress: 'notifications@example.com', configurationSetName: 'notifier-local' });
      const subject = `Your order ${Date.now()} has shipped`;
      const outcome = await provider.send(
        {
          key: 'mailbox-page-key',
          message: { channel: 'email', to: 'buyer@example.com', subject, text: 'It is on its way.' },
          messageClass: 'transactional',
          smsType: 'Transactional', push: DEFAULT_PUSH_POLICY, claimVersion: 1,
          templateId: 'order-shipped',
        },
        new AbortController().signal,
      );
      expect(outcome.kind).toBe('sent');

      const page = await browser.newPage();
      const offLoopback: string[] = [];
      await page.route('**/*', (route) => {
        const url = new URL(route.request().url());
        if (url.hostname === '127.0.0.1') return route.continue();
        offLoopback.push(url.host);
        return route.abort();
      });
      await page.goto(ses.mailboxUrl);
      await expect.poll(() => page.getByText(subject).count(), { timeout: 20_000 }).toBeGreaterThan(0);
      await page.getByText('buyer@example.com').first().waitFor({ state: 'visible', timeout: 10_000 });
      expect(offLoopback).toEqual([]);

      mkdirSync('test-results', { recursive: true });
      await page.screenshot({ path: join('test-results', 'mailbox-page.png'), fullPage: true });
    } finally {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
      await ses.stop();
    }
  });
});
