import { describe, expect, it } from 'vitest';
import { repositoryTemplates } from '../../../functions/adapters/template-directory';
import { buildTemplateRegistry } from '../../../functions/core/template-checks/template-registry';
import { renderTemplate, type TemplateValue } from '../../../functions/core/templates/templates';

/** A registry of one template file, validated as the sender's are. */
function registryOf(id: string, content: Record<string, unknown>) {
  return buildTemplateRegistry([{ name: `${id}.json`, text: JSON.stringify(content) }]);
}

describe('templates: the shipped ones render as they always did', () => {
  it('renders a channel variant from event data', () => {
    expect(renderTemplate(repositoryTemplates(), 'login-code', 'sms', { code: '123456', expiresInMinutes: 5 })).toEqual({
      ok: true,
      content: { channel: 'sms', text: 'Your sign-in code is 123456. It expires in 5 minutes.' },
    });
  });

  it('treats null and missing fields alike: a permanent failure naming the fields, never an empty string', () => {
    expect(renderTemplate(repositoryTemplates(), 'order-shipped', 'email', { orderId: '1', carrier: null })).toEqual({
      ok: false,
      reason: 'MissingTemplateField: template "order-shipped" needs carrier, trackingNumber',
    });
  });

  it('renders every part of an e-mail, and a push body as the message text', () => {
    const data = { orderId: '1001', carrier: 'DHL', trackingNumber: 'JD0142' };
    expect(renderTemplate(repositoryTemplates(), 'order-shipped', 'email', data)).toEqual({
      ok: true,
      content: {
        channel: 'email',
        subject: 'Your order 1001 has shipped',
        text: 'Good news: order 1001 is on its way with DHL. Track it with JD0142.',
      },
    });
    expect(renderTemplate(repositoryTemplates(), 'order-shipped', 'push', data)).toEqual({
      ok: true,
      content: { channel: 'push', title: 'Order shipped', text: 'Order 1001 is on its way.' },
    });
  });

  it('names a missing template and a missing channel variant', () => {
    expect(renderTemplate(repositoryTemplates(), 'nope', 'sms', {})).toEqual({ ok: false, reason: 'MissingTemplate: no template "nope"' });
    expect(renderTemplate(repositoryTemplates(), 'order-sold', 'sms', {})).toEqual({
      ok: false,
      reason: 'MissingTemplate: template "order-sold" has no sms variant',
    });
  });
});

describe('rendering', () => {
  const welcome = registryOf('welcome', {
    fields: { name: { maxLength: 40 }, n: { maxLength: 5 }, b: { maxLength: 5 } },
    email: { subject: 'Hi {{ name }}', text: 'Hello {{name}}, {{n}} {{b}}', html: '<p title="{{name}}">Hello {{name}}, {{n}} {{b}}</p>' },
  });

  it('escapes every inserted value in the HTML part, and only there', () => {
    const name = `<b>"Tom" & 'Jerry'</b>`;
    expect(renderTemplate(welcome, 'welcome', 'email', { name, n: 3, b: true })).toEqual({
      ok: true,
      content: {
        channel: 'email',
        subject: `Hi ${name}`,
        text: `Hello ${name}, 3 true`,
        // Wrapped in the language of the variant (html-language.ts): the template has no <html> tag to carry it.
        html: '<div lang="en"><p title="&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;&#x2F;b&gt;">Hello &lt;b&gt;&quot;Tom&quot; &amp; &#39;Jerry&#39;&lt;&#x2F;b&gt;, 3 true</p></div>',
      },
    });
  });

  it('inserts a value that looks like a placeholder as text, without rendering it again', () => {
    const result = renderTemplate(welcome, 'welcome', 'email', { name: '{{n}}', n: 1, b: false });
    expect(result.ok && result.content.channel === 'email' ? result.content.text : undefined).toBe('Hello {{n}}, 1 false');
  });

  it('treats a field set to undefined (as a JavaScript caller may pass) as missing, never rendering "undefined"', () => {
    const registry = registryOf('code', { fields: { code: { maxLength: 9 } }, sms: { text: 'Code {{code}}' } });
    const data = { code: undefined } as unknown as Record<string, TemplateValue>;
    expect(renderTemplate(registry, 'code', 'sms', data)).toEqual({ ok: false, reason: 'MissingTemplateField: template "code" needs code' });
  });

  it('renders an e-mail without an HTML part as text only: no html key at all', () => {
    const registry = registryOf('plain', { fields: { name: { maxLength: 9 } }, email: { subject: 'Hi', text: 'Hello {{name}}' } });
    expect(renderTemplate(registry, 'plain', 'email', { name: 'Ann' })).toStrictEqual({
      ok: true,
      content: { channel: 'email', subject: 'Hi', text: 'Hello Ann' },
    });
  });

  it('renders a text that validation would refuse as it stands, when the registry was built without validation', () => {
    const unvalidated = new Map([['raw', { id: 'raw', fields: {}, sms: { text: 'Code {{code', maxSegments: 3 } }]]);
    expect(renderTemplate(unvalidated, 'raw', 'sms', {})).toEqual({ ok: true, content: { channel: 'sms', text: 'Code {{code' } });
  });

  it('does not read inherited properties as data', () => {
    const registry = registryOf('t', { fields: { constructor: { maxLength: 10 } }, sms: { text: '{{constructor}}' } });
    expect(renderTemplate(registry, 't', 'sms', {})).toEqual({ ok: false, reason: 'MissingTemplateField: template "t" needs constructor' });
  });

  it('refuses a value longer than its declared maxLength, naming the field and not the value', () => {
    const registry = registryOf('code', { fields: { code: { maxLength: 6 } }, sms: { text: 'Code {{code}}' } });
    expect(renderTemplate(registry, 'code', 'sms', { code: '123456' })).toEqual({ ok: true, content: { channel: 'sms', text: 'Code 123456' } });
    expect(renderTemplate(registry, 'code', 'sms', { code: 1234567 })).toEqual({
      ok: false,
      reason: 'InvalidTemplateField: template "code" field code is 7 characters, more than its maxLength 6',
    });
  });

  it('refuses a value outside GSM-7 in a field declared gsm7, and takes GSM-7 extension characters', () => {
    const registry = registryOf('code', { fields: { code: { maxLength: 6, charset: 'gsm7' } }, sms: { text: 'Code {{code}}' } });
    expect(renderTemplate(registry, 'code', 'sms', { code: '{€}' }).ok).toBe(true);
    expect(renderTemplate(registry, 'code', 'sms', { code: '12あ' })).toEqual({
      ok: false,
      reason: 'InvalidTemplateField: template "code" field code is not GSM-7 text (declared charset gsm7)',
    });
  });

  describe('control characters: refused per message, by the part a value fills', () => {
    const shipped = registryOf('shipped', {
      fields: { orderId: { maxLength: 20 }, note: { maxLength: 20 } },
      email: { subject: 'Order {{orderId}}', text: 'Order {{orderId}}: {{note}}' },
      sms: { text: 'Order {{orderId}}: {{note}}' },
      push: { title: 'Order {{orderId}}', body: '{{note}}' },
    });

    it('a one-line part (e-mail subject, push title) carries none: the message fails naming the field, the code point and the part', () => {
      const data = { orderId: '10\n01', note: 'ok' };
      expect(renderTemplate(shipped, 'shipped', 'email', data)).toEqual({
        ok: false,
        reason: 'InvalidTemplateField: template "shipped" field orderId holds control character U+000A, which the email subject cannot carry',
      });
      expect(renderTemplate(shipped, 'shipped', 'push', data)).toEqual({
        ok: false,
        reason: 'InvalidTemplateField: template "shipped" field orderId holds control character U+000A, which the push title cannot carry',
      });
      for (const [control, name] of [['\t', 'U+0009'], ['\u007f', 'U+007F'], ['\u0085', 'U+0085']]) {
        expect(renderTemplate(shipped, 'shipped', 'email', { orderId: `1${control}`, note: 'ok' })).toMatchObject({ ok: false, reason: expect.stringContaining(`${name}, which the email subject`) });
      }
      // The same value in an SMS text is a line break: that message is sent.
      expect(renderTemplate(shipped, 'shipped', 'sms', data)).toEqual({ ok: true, content: { channel: 'sms', text: 'Order 10\n01: ok' } });
    });

    it('a body carries tab and line breaks, and no other control character (C0, DEL, C1)', () => {
      expect(renderTemplate(shipped, 'shipped', 'sms', { orderId: '1', note: 'a\tb\r\nc' }).ok).toBe(true);
      for (const [control, name] of [['\u0000', 'U+0000'], ['\u0007', 'U+0007'], ['\u001b', 'U+001B'], ['\u007f', 'U+007F'], ['\u009f', 'U+009F']]) {
        expect(renderTemplate(shipped, 'shipped', 'sms', { orderId: '1', note: `a${control}` })).toEqual({
          ok: false,
          reason: `InvalidTemplateField: template "shipped" field note holds control character ${name}, which the sms text cannot carry`,
        });
      }
      expect(renderTemplate(shipped, 'shipped', 'push', { orderId: '1', note: 'x\u0085' })).toMatchObject({ ok: false, reason: expect.stringMatching(/U\+0085, which the push body/) });
    });

    it('takes every other character, a field not used by the variant is not looked at, and the template limits can turn the check off', () => {
      expect(renderTemplate(shipped, 'shipped', 'email', { orderId: '\u00a0\u2028\ud83d\ude00', note: 'x' }).ok).toBe(true);
      const onlyTitle = registryOf('title', { fields: { a: { maxLength: 5 }, b: { maxLength: 5 } }, push: { title: '{{a}}', body: 'B' }, sms: { text: '{{b}}' } });
      expect(renderTemplate(onlyTitle, 'title', 'push', { a: 'x', b: '\u0001' }).ok).toBe(true);
      expect(renderTemplate(shipped, 'shipped', 'email', { orderId: '\u0001', note: '' }, { refuseControlCharacters: false }).ok).toBe(true);
    });
  });

  it('checks only the fields the rendered variant uses', () => {
    const registry = registryOf('two', {
      fields: { a: { maxLength: 3 }, b: { maxLength: 3 } },
      sms: { text: '{{a}}' },
      push: { title: 'T', body: '{{b}}' },
    });
    expect(renderTemplate(registry, 'two', 'sms', { a: 'x', b: 'too long' })).toEqual({ ok: true, content: { channel: 'sms', text: 'x' } });
  });
});
