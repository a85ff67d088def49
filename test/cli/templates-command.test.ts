import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { run } from '../../cli/templates-command';
import { tempDir } from '../support/temp-dir';

/** Runs the command with captured output. */
async function templates(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

function folderWith(files: Record<string, unknown>): string {
  const dir = tempDir('notifier-cli-templates-');
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  }
  return dir;
}

const dataFile = (data: unknown) => join(folderWith({ 'data.json': data }), 'data.json');

describe('notifier templates check', () => {
  it('lists every valid template and each of its variants with its worst case against each channel limit', async () => {
    const { code, out } = await templates('check');
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines[0]).toMatch(/^4 valid templates in .*templates\/?$/);
    expect(lines.slice(3, 13)).toEqual([
      'template             locale          channels  sms parts  subject chars  push bytes',
      '-------------  ------------  ----------------  ---------  -------------  ----------',
      'login-code     en (default)  email, sms, push  1/1 GSM-7         17/150    491/4096',
      '                         de  email, sms, push  1/1 GSM-7         15/150    491/4096',
      'order-shipped  en (default)  email, sms, push  3/3 UCS-2         55/150    636/4096',
      '                         de  email, sms, push  3/3 UCS-2         63/150    652/4096',
      'order-sold     en (default)       email, push          -         78/150   1014/4096',
      '                         de       email, push          -         95/150   1034/4096',
      'weekly-offers  en (default)  email, sms, push  3/3 UCS-2        131/150   1140/4096',
      '                         de  email, sms, push  3/3 UCS-2        133/150   1143/4096',
    ]);
  });

  it('fails on a template without its default variant: translations whose template file is missing', async () => {
    const dir = folderWith({ 'reset/de.json': { email: { subject: 'Passwort', text: 'Neu setzen' } } });
    const { code, err } = await templates('check', '--dir', dir);
    expect(code).toBe(1);
    expect(err).toContain(
      '  - reset/de.json: template "reset" has no variant for its default locale: reset.json (the default locale\'s texts, the fields and settings) is missing\n',
    );
  });

  it('fails on variants whose fields disagree: a placeholder in de that en lacks, and one de drops', async () => {
    const dir = folderWith({
      'reset.json': { fields: { name: { maxLength: 20 }, link: { maxLength: 200 } }, email: { subject: 'Reset, {{name}}', text: 'Open {{link}}' } },
      'reset/de.json': { email: { subject: 'Passwort {{link}}', text: 'Öffnen Sie {{link}}' } },
    });
    const { code, err } = await templates('check', '--dir', dir);
    expect(code).toBe(1);
    expect(err).toBe(`1 problem in ${dir}:\n  - reset/de.json email: lacks {{name}}, which the en email uses: variants disagree on their fields\n`);
  });

  it('says when a translation\'s SMS needs UCS-2 where the default\'s is GSM-7 (Polish)', async () => {
    const dir = folderWith({
      'code.json': { fields: { code: { maxLength: 6, charset: 'gsm7' } }, sms: { text: 'Your code is {{code}}.', maxSegments: 1 } },
      'code/pl.json': { sms: { text: 'Twój kod logowania to {{code}}.' } },
    });
    const { code, out } = await templates('check', '--dir', dir);
    expect(code).toBe(0);
    expect(out).toContain('                pl       sms  1/1 UCS-2');
    expect(out).toContain('note: code pl: the SMS text needs UCS-2 (70 characters in one part, 67 a part when split; GSM-7 has 160/153), up to 1 part of the 1 allowed');
  });

  it('exits 1 listing every problem of every file', async () => {
    const dir = folderWith({
      'a.json': { fields: {}, sms: { text: '{{x}}' } },
      'b.json': { fields: { v: { maxLength: 200 } }, email: { subject: '{{v}}', text: 'T' } },
    });
    const { code, out, err } = await templates('check', '--dir', dir);
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toBe(
      `2 problems in ${dir}:\n` +
        '  - a.json sms.text: uses {{x}}, which is not declared in fields\n' +
        '  - b.json email.subject: can be 200 characters with every field at its maxLength; the limit is 150\n',
    );
  });

  it('runs through the notifier bin', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['cli/notifier.mjs', 'templates', 'check'], { timeout: 30_000 });
    expect(stdout).toMatch(/^4 valid templates in /);
  }, 30_000);
});

describe('notifier templates render', () => {
  it('previews every variant of a template with the data file', async () => {
    const { code, out, err } = await templates('render', 'order-shipped', '--data', dataFile({ orderId: '1001', carrier: 'DHL', trackingNumber: 'JD0142' }));
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toBe(
      [
        'no locale given: variant en (chain en); values written in en',
        'variants: en, de',
        'the default locale, counted as LocaleFallback reason missing',
        '== email (subject 27/150 characters)',
        'subject: Your order 1001 has shipped',
        '-- text',
        'Good news: order 1001 is on its way with DHL. Track it with JD0142.',
        '== sms (1 part, GSM-7)',
        'Order 1001 shipped with DHL, tracking JD0142.',
        '== push (platform payload 448/4096 bytes)',
        'title: Order shipped',
        'body: Order 1001 is on its way.',
        '',
      ].join('\n'),
    );
  });

  it('previews one channel, and takes an event file for its data', async () => {
    const event = { templateId: 'login-code', data: { code: '482913', expiresInMinutes: 10 }, recipients: [] };
    const { code, out } = await templates('render', 'login-code', '--data', dataFile(event), '--channel', 'sms');
    expect(code).toBe(0);
    expect(out).toMatch(/\n== sms \(1 part, GSM-7\)\nYour sign-in code is 482913. It expires in 10 minutes.\n$/);
  });

  it('prints the variant a --locale gets and the chain walked: de-AT finds de, values written the Austrian way', async () => {
    const { code, out } = await templates('render', 'login-code', '--locale', 'de-at', '--channel', 'sms', '--data', dataFile({ code: '482913', expiresInMinutes: 10 }));
    expect(code).toBe(0);
    expect(out).toBe(
      [
        'locale "de-at": variant de (chain de-AT → de); values written in de-AT',
        'variants: en, de',
        '== sms (1 part, GSM-7)',
        'Ihr Anmeldecode lautet 482913. Er läuft in 10 Minuten ab.',
        '',
      ].join('\n'),
    );
  });

  it('prints the whole chain to the default for a tag with no variant, and renders sample values without --data', async () => {
    const { code, out } = await templates('render', 'login-code', '--locale', 'fr-CA', '--channel', 'sms');
    expect(code).toBe(0);
    expect(out).toContain('locale "fr-CA": variant en (chain fr-CA → fr → en); values written in en\n');
    expect(out).toContain('the default locale, counted as LocaleFallback reason no-variant\n');
    expect(out).toContain('Your sign-in code is <code>. It expires in 9999 minutes.');
  });

  it('shows the HTML part escaped, as it will be sent', async () => {
    const dir = folderWith({ 'hello.json': { fields: { name: { maxLength: 40 } }, email: { subject: 'Hi {{name}}', text: 'Hi {{name}}', html: '<p>Hi {{name}}</p>' } } });
    const { code, out } = await templates('render', 'hello', '--dir', dir, '--data', dataFile({ name: '<b>Ann</b>' }));
    expect(code).toBe(0);
    expect(out).toContain('-- text\nHi <b>Ann</b>\n-- html\n<div lang="en"><p>Hi &lt;b&gt;Ann&lt;&#x2F;b&gt;</p></div>\n');
  });

  it('exits 1 with the reason the sender would record when the data does not fit', async () => {
    const { code, out, err } = await templates('render', 'login-code', '--data', dataFile({ code: '1' }), '--channel', 'sms');
    expect(code).toBe(1);
    expect(out).not.toContain('==');
    expect(err).toBe('sms: MissingTemplateField: template "login-code" needs expiresInMinutes\n');
  });

  it('exits 1 on an unknown template, naming the known ones', async () => {
    const { code, err } = await templates('render', 'nope', '--data', dataFile({}));
    expect(code).toBe(1);
    expect(err).toMatch(/^no template "nope" in .* \(there are: login-code, order-shipped, order-sold, weekly-offers\)\n$/);
  });

  it.each([
    [['render', 'login-code', '--time-zone', 'Mars/Olympus'], '--time-zone Mars/Olympus is not an IANA time zone such as Europe/Vienna'],
    [['render', 'login-code', '--data', 'x.json', '--channel', 'fax'], '--channel must be one of email, sms, push'],
    [[], 'which action: check or render?'],
    [['check', 'extra'], 'unexpected arguments: check extra'],
    [['check', '--bogus'], "Unknown option '--bogus'"],
  ])('exits 2 on a usage error: %j', async (argv, message) => {
    const { code, err } = await templates(...argv);
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(err).toContain('usage: notifier templates check');
  });
});
