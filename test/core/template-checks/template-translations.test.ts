import { describe, expect, it } from 'vitest';
import type { TemplateFile } from '../../../functions/core/templates/template-definition';
import { buildTemplateRegistry, checkTemplateFiles } from '../../../functions/core/template-checks/template-registry';
import { renderTemplate } from '../../../functions/core/templates/templates';

const file = (name: string, content: unknown): TemplateFile => ({ name, text: JSON.stringify(content) });
const problemsOf = (...files: TemplateFile[]) => checkTemplateFiles(files).problems.map((p) => `${p.file}${p.path ? ` ${p.path}` : ''}: ${p.message}`);

const CODE = {
  fields: { code: { maxLength: 6, charset: 'gsm7' } },
  email: { subject: 'Your code', text: 'Your code is {{code}}.' },
  sms: { text: 'Your code is {{code}}.', maxSegments: 1 },
};
const CODE_DE = { email: { subject: 'Ihr Code', text: 'Ihr Code lautet {{code}}.' }, sms: { text: 'Ihr Code lautet {{code}}.' } };

describe('translations: one file per locale beside the template file', () => {
  it('a valid translation is a variant of its template, its sms.maxSegments the template file\'s unless it says otherwise', () => {
    const registry = buildTemplateRegistry([file('code.json', CODE), file('code/de.json', CODE_DE)]);
    const template = registry.get('code')!;
    expect(template.locale).toBe('en');
    expect([...template.translations!.keys()]).toEqual(['de']);
    expect(template.translations!.get('de')!.sms).toEqual({ text: 'Ihr Code lautet {{code}}.', maxSegments: 1 });
    expect(renderTemplate(registry, 'code', 'sms', { code: '123456' }, { locale: 'de' })).toEqual({ ok: true, content: { channel: 'sms', text: 'Ihr Code lautet 123456.' } });
    expect(renderTemplate(registry, 'code', 'sms', { code: '123456' })).toEqual({ ok: true, content: { channel: 'sms', text: 'Your code is 123456.' } });
  });

  it('fails on a template without its default variant: translations and no template file', () => {
    expect(problemsOf(file('other.json', CODE), file('code/de.json', CODE_DE))).toEqual([
      'code/de.json: template "code" has no variant for its default locale: code.json (the default locale\'s texts, the fields and settings) is missing',
    ]);
  });

  it('fails on variants whose fields disagree, both ways, per channel', () => {
    const twoFields = { fields: { code: { maxLength: 6 }, minutes: { maxLength: 3 } }, sms: { text: '{{code}} in {{minutes}} min' }, push: { title: 'Code', body: '{{code}}' } };
    expect(problemsOf(file('code.json', twoFields), file('code/de.json', { sms: { text: '{{code}}' }, push: { title: 'Code', body: '{{code}}, {{minutes}} Min.' } }))).toEqual([
      'code/de.json sms: lacks {{minutes}}, which the en sms uses: variants disagree on their fields',
      'code/de.json push: uses {{minutes}}, which the en push does not: variants disagree on their fields',
    ]);
  });

  it('fails on a placeholder the template does not declare, and on a channel the default lacks or has', () => {
    expect(problemsOf(file('code.json', CODE), file('code/de.json', { email: CODE_DE.email, push: { title: 'Code', body: '{{code}} {{name}}' } }))).toEqual([
      'code/de.json push.body: uses {{name}}, which is not declared in fields',
      'code/de.json sms: is missing: the en variant has sms, and a variant is a whole template',
      'code/de.json push: is not in the en variant: every variant has the same channels',
    ]);
  });

  it('fails on a file name that is not a canonical tag, or is the default locale', () => {
    expect(problemsOf(file('code.json', CODE), file('code/de_AT.json', CODE_DE), file('code/de-at.json', CODE_DE), file('code/en.json', CODE_DE))).toEqual([
      'code/de_AT.json: "de_AT" is not a BCP 47 language tag: a translation is named after its locale (de.json, de-AT.json, zh-Hant.json)',
      'code/de-at.json: name it de-AT.json, the canonical form of "de-at", as recipients\' tags are matched in that form',
      'code/en.json: is in en, the template\'s default locale, whose texts are the template file\'s own: remove one of the two',
    ]);
  });

  it('fails on a default locale that is not a canonical tag', () => {
    expect(problemsOf(file('code.json', { ...CODE, locale: 'de_DE' }))).toEqual(['code.json locale: "de_DE" is not a BCP 47 language tag (en, de, pt-BR)']);
    expect(problemsOf(file('code.json', { ...CODE, locale: 'DE' }))).toEqual(['code.json locale: write "de", the canonical form of "DE"']);
  });

  it('counts a Polish SMS as UCS-2 segments, and fails it when it takes more parts than allowed', () => {
    const polish = { sms: { text: 'Twój kod logowania to {{code}}. Nie udostępniaj go nikomu.' }, email: CODE_DE.email };
    const checked = checkTemplateFiles([file('code.json', CODE), file('code/pl.json', polish)]);
    expect(checked.problems).toEqual([]);
    expect(checked.templates[0]!.figures.sms).toEqual({ encoding: 'GSM-7', segments: 1, maxSegments: 1 });
    expect(checked.templates[0]!.translationFigures!.get('pl')!.sms).toEqual({ encoding: 'UCS-2', segments: 1, maxSegments: 1 });
    // 78 characters at worst: one GSM-7 part would hold them; in UCS-2 they are two.
    const longer = { ...polish, sms: { text: 'Twój jednorazowy kod logowania to {{code}}. Nie udostępniaj go nikomu, nigdy.' } };
    expect(problemsOf(file('code.json', CODE), file('code/pl.json', longer))).toEqual([
      'code/pl.json sms.text: can take 2 SMS parts (UCS-2) with every field at its maxLength; sms.maxSegments allows 1',
    ]);
  });

  it('applies each variant\'s own subject limit', () => {
    const long = { ...CODE_DE, email: { subject: `${'Ihr Code '.repeat(17)}{{code}}`, text: '{{code}}' } };
    expect(problemsOf(file('code.json', CODE), file('code/de.json', long))).toEqual([
      'code/de.json email.subject: can be 159 characters with every field at its maxLength; the limit is 150',
    ]);
  });
});
