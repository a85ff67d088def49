import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TEMPLATES_DIR } from '../../functions/adapters/template-directory';
import { notifierPropsFromContext } from '../../lib/context-config';
import { DEFAULT_ENTRIES } from '../../lib/notifier-function';
import { NotifierStack } from '../../lib/notifier-stack';
import { BASE_PROPS, errorOf, logicalId, newApp } from './helpers';
import { tempDir } from '../support/temp-dir';

/** A copy of the shipped templates folder, plus `extra` files (name -> content). */
function templatesWith(extra: Record<string, unknown>): string {
  const dir = join(tempDir('notifier-cdk-templates-'), 'templates');
  cpSync(DEFAULT_TEMPLATES_DIR, dir, { recursive: true });
  for (const [name, content] of Object.entries(extra)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), JSON.stringify(content, null, 2));
  }
  return dir;
}

const PARCEL_DELAYED = {
  fields: { orderId: { maxLength: 32 } },
  email: { subject: 'Order {{orderId}} is delayed', text: 'Sorry: order {{orderId}} will arrive a day late.' },
};

describe('templates at synth', () => {
  it('fails if a template is invalid, listing every problem of every file', () => {
    const dir = templatesWith({
      'too-long.json': { fields: { v: { maxLength: 200 } }, sms: { text: '{{v}}', maxSegments: 1 } },
      'raw.json': { fields: { v: { maxLength: 5 } }, email: { subject: 'S', text: 'T {{v}}', html: '<p>{{{v}}}</p>' } },
    });
    const message = errorOf({ templatesDir: dir });
    expect(message).toContain(`IdempotentNotifier: the templates in ${dir} are invalid:`);
    expect(message).toContain('  - raw.json email.html: the tag {{{v}}} at character 3 inserts the value unescaped');
    expect(message).toContain('  - too-long.json sms.text: can take 4 SMS parts (UCS-2) with every field at its maxLength; sms.maxSegments allows 1');
  });

  it('fails if a template has no variant for its default locale, or its variants disagree on their fields', () => {
    const dir = templatesWith({
      'reset/de.json': { email: { subject: 'Passwort', text: 'Neu setzen' } },
      'order-sold/fr.json': { email: { subject: 'Article {{itemId}} vendu', text: 'Commande {{orderId}}.' }, push: { title: 'Vendu', body: '{{orderId}} {{itemId}}' } },
    });
    const message = errorOf({ templatesDir: dir });
    expect(message).toContain('  - reset/de.json: template "reset" has no variant for its default locale: reset.json');
    expect(message).toContain('  - order-sold/fr.json email: lacks {{shipWithinDays}}, which the en email uses: variants disagree on their fields');
  });

  it('says when a translation\'s SMS needs UCS-2 where its default\'s is GSM-7 (a Polish sign-in code), as an info annotation on the sender', () => {
    const dir = templatesWith({
      'login-code/pl.json': {
        email: { subject: 'Twój kod logowania', text: 'Twój kod logowania to {{code}}. Wygasa za {{expiresInMinutes}} min.' },
        sms: { text: 'Twój kod logowania to {{code}}. Wygasa za {{expiresInMinutes}} min.' },
        push: { title: 'Twój kod logowania', body: '{{code}} (wygasa za {{expiresInMinutes}} min.)' },
      },
    });
    const app = newApp();
    const stack = new NotifierStack(app, 'Test', { notifier: { ...BASE_PROPS, templatesDir: dir } });
    Annotations.fromStack(stack).hasInfo(
      '*',
      Match.stringLikeRegexp('^templates: login-code pl: the SMS text needs UCS-2 \\(70 characters in one part, 67 a part when split; GSM-7 has 160/153\\), up to 1 part of the 1 allowed \\(the default locale\'s: 1, GSM-7\\)$'),
    );
    // German fits GSM-7: nothing to say about it.
    expect(Annotations.fromStack(stack).findInfo('*', Match.stringLikeRegexp(' de: ')).length).toBe(0);
  });

  it('fails if the templates folder does not exist', () => {
    expect(errorOf({ templatesDir: '/nonexistent/templates' })).toBe('IdempotentNotifier: templatesDir /nonexistent/templates does not exist');
  });

  it('embeds a template added as a file in the sender asset, with no code change', () => {
    const dir = templatesWith({ 'parcel-delayed.json': PARCEL_DELAYED });
    const app = newApp({ 'aws:cdk:bundling-stacks': ['**'] });
    const stack = new NotifierStack(app, 'Test', { notifier: { ...BASE_PROPS, senderEntry: DEFAULT_ENTRIES.sender, templatesDir: dir } });
    const assembly = app.synth();
    const resources = assembly.getStackByName(stack.stackName).template.Resources as Record<string, { Properties: { Code: { S3Key: string } } }>;
    const hash = resources[logicalId(stack.notifier.senderFunction)]?.Properties.Code.S3Key.replace(/\.zip$/, '');
    const asset = join(assembly.directory, `asset.${hash}`);
    const bundle = readdirSync(asset)
      .map((file) => readFileSync(join(asset, file), 'utf8'))
      .join('\n');
    // The template, as synth checked it, is in the bundle (index.mjs or a chunk it imports) under its id (esbuild may re-quote the string).
    expect(bundle).toContain('"parcel-delayed"');
    expect(bundle).toContain('Sorry: order {{orderId}} will arrive a day late.');
  }, 120_000);

  it('gives two senders with different templates two assets, also in one app (CDK caches assets by their bundling options)', () => {
    const app = newApp({ 'aws:cdk:bundling-stacks': ['**'] });
    const stacks = [templatesWith({}), templatesWith({ 'parcel-delayed.json': PARCEL_DELAYED }), templatesWith({})].map(
      (templatesDir, i) => new NotifierStack(app, `Brand${i}`, { notifier: { ...BASE_PROPS, senderEntry: DEFAULT_ENTRIES.sender, templatesDir } }),
    );
    const assembly = app.synth();
    const [shipped, withParcel, shippedAgain] = stacks.map((stack) => {
      const resources = assembly.getStackByName(stack.stackName).template.Resources as Record<string, { Properties: { Code: { S3Key: string } } }>;
      return resources[logicalId(stack.notifier.senderFunction)]?.Properties.Code.S3Key ?? '';
    });
    expect(shipped).toMatch(/^[0-9a-f]{64}\.zip$/);
    expect(withParcel).toMatch(/^[0-9a-f]{64}\.zip$/);
    expect(withParcel).not.toBe(shipped);
    expect(shippedAgain).toBe(shipped);
  }, 120_000);
});

describe('templates from context', () => {
  it('takes the folder from notifier:templatesDir', () => {
    const dir = templatesWith({});
    const stack = new Stack(newApp({ 'notifier:templatesDir': dir }), 'FromContext');
    expect(notifierPropsFromContext(stack).templatesDir).toBe(dir);
  });
});
