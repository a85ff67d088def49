import { describe, expect, it } from 'vitest';
import type { TemplateFile } from '../../../functions/core/templates/template-definition';
import { TemplateValidationError } from '../../../functions/core/template-checks/template-problems';
import { buildTemplateRegistry, checkTemplateFiles } from '../../../functions/core/template-checks/template-registry';

const file = (name: string, content: unknown): TemplateFile => ({ name, text: JSON.stringify(content) });
const problemsOf = (...files: TemplateFile[]) => checkTemplateFiles(files).problems;

const SMS_ONLY = { fields: { code: { maxLength: 6 } }, sms: { text: 'Code {{code}}' } };

describe('template files: what is refused, each problem located', () => {
  it('accepts a valid file, its id taken from the file name and its defaults applied', () => {
    const registry = buildTemplateRegistry([file('login-code.json', SMS_ONLY)]);
    expect([...registry.keys()]).toEqual(['login-code']);
    expect(registry.get('login-code')).toEqual({
      id: 'login-code',
      bulk: false,
      locale: 'en',
      fields: { code: { maxLength: 6, charset: 'unicode' } },
      sms: { text: 'Code {{code}}', maxSegments: 3 },
    });
  });

  it('fails if a placeholder is not declared in fields', () => {
    expect(problemsOf(file('a.json', { fields: {}, sms: { text: 'Code {{code}}' } }))).toEqual([
      { file: 'a.json', path: 'sms.text', message: 'uses {{code}}, which is not declared in fields' },
    ]);
  });

  it('fails if a declared field is used by no variant', () => {
    expect(problemsOf(file('a.json', { ...SMS_ONLY, fields: { ...SMS_ONLY.fields, extra: { maxLength: 1 } } }))).toEqual([
      { file: 'a.json', path: 'fields.extra', message: 'is declared but no variant uses it' },
    ]);
  });

  it('fails on raw (unescaped) insertion, in HTML and text variants alike', () => {
    const problems = problemsOf(
      file('a.json', { fields: { x: { maxLength: 5 } }, email: { subject: 'S', text: 'T {{&x}}', html: '<p>{{{x}}}</p>' } }),
    );
    expect(problems.map((p) => p.path)).toEqual(['email.text', 'email.html']);
    expect(problems.map((p) => p.message)).toEqual([
      'the tag {{&x}} at character 2 inserts the value unescaped ({{{x}}} or {{&x}}); use {{x}}: HTML variants escape it, text variants never do',
      'the tag {{{x}}} at character 3 inserts the value unescaped ({{{x}}} or {{&x}}); use {{x}}: HTML variants escape it, text variants never do',
    ]);
  });

  it('fails on logic: sections, inverted sections, partials and delimiter changes', () => {
    const texts = ['{{#x}}y{{/x}}', '{{^x}}y{{/x}}', '{{> other}}', '{{=<% %>=}}'];
    const problems = texts.map((text) => problemsOf(file('a.json', { fields: { x: { maxLength: 1 } }, sms: { text } }))[0]?.message);
    expect(problems).toEqual([
      'the tag {{#x}} at character 0 is a section; templates hold no logic: only {{field}} placeholders',
      'the tag {{^x}} at character 0 is an inverted section; templates hold no logic: only {{field}} placeholders',
      'the tag {{> other}} at character 0 is a partial; templates hold no logic: only {{field}} placeholders',
      'the tag {{=<% %>=}} at character 0 changes the delimiters; only {{ }} is used',
    ]);
  });

  it('allows comments', () => {
    expect(problemsOf(file('a.json', { ...SMS_ONLY, sms: { text: 'Code {{code}}{{! six digits }}' } }))).toEqual([]);
  });

  it('fails on a tag that does not parse', () => {
    expect(problemsOf(file('a.json', { ...SMS_ONLY, sms: { text: 'Code {{code' } }))).toEqual([
      { file: 'a.json', path: 'sms.text', message: 'the tag at character 5 is never closed (}})' },
    ]);
  });

  it('fails on a file that is not JSON, a bad name, an unknown key, no channel and an out-of-range setting', () => {
    const problems = problemsOf(
      { name: 'broken.json', text: '{ "sms": ' },
      file('-dash.json', SMS_ONLY),
      file('typo.json', { ...SMS_ONLY, email: { subjet: 'x', subject: 'S', text: 'T {{code}}' } }),
      file('empty.json', { fields: {} }),
      file('long.json', { ...SMS_ONLY, sms: { text: '{{code}}', maxSegments: 11 } }),
    );
    expect(problems.map((p) => [p.file, p.path])).toEqual([
      ['broken.json', ''],
      ['-dash.json', ''],
      ['typo.json', 'email.subjet'],
      ['empty.json', ''],
      ['long.json', 'sms.maxSegments'],
    ]);
    expect(problems[0]?.message).toMatch(/^is not JSON \(/);
    expect(problems[1]?.message).toBe(
      '"-dash" is not a template id: letters, digits, \'.\', \'_\' and \'-\', starting with a letter or digit, at most 128',
    );
    expect(problems[2]?.message).toBe('Unrecognized key');
    expect(problems[3]?.message).toBe('a template needs at least one of email, sms, push');
  });

  it.each(['login code', 'login-code!', 'a'.repeat(129)])('refuses the template id %j: only the allowed characters, to the end, at most 128', (id) => {
    expect(problemsOf(file(`${id}.json`, SMS_ONLY))).toEqual([
      { file: `${id}.json`, path: '', message: `"${id}" is not a template id: letters, digits, '.', '_' and '-', starting with a letter or digit, at most 128` },
    ]);
  });

  it('fails on a file whose name does not end in .json', () => {
    expect(problemsOf(file('login-code.txt', SMS_ONLY))).toEqual([{ file: 'login-code.txt', path: '', message: 'a template file name ends in .json' }]);
  });

  it('fails when there are no template files at all', () => {
    expect(problemsOf()).toEqual([{ file: '(none)', path: '', message: 'no template files (*.json) were given' }]);
  });

  it('collects every problem of every file; the registry refuses them all at once with a typed error', () => {
    const files = [file('a.json', { fields: {}, sms: { text: '{{x}}' } }), file('b.json', { fields: {}, push: { title: '{{y}}', body: 'B' } })];
    let caught: unknown;
    try {
      buildTemplateRegistry(files);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TemplateValidationError);
    expect((caught as TemplateValidationError).problems).toHaveLength(2);
    expect((caught as Error).message).toBe(
      '2 template problems: a.json sms.text: uses {{x}}, which is not declared in fields; ' +
        'b.json push.title: uses {{y}}, which is not declared in fields',
    );
  });

  it('states a problem of the file as a whole without a location: "<file>: <message>"', () => {
    expect(() => buildTemplateRegistry([file('login-code.txt', SMS_ONLY)])).toThrow(
      expect.objectContaining({ message: '1 template problem: login-code.txt: a template file name ends in .json' }),
    );
  });

  it('names its error TemplateValidationError, which Lambda reports as the errorType of a failed cold start', () => {
    expect(() => buildTemplateRegistry([file('a.json', { fields: {}, sms: { text: '{{x}}' } })])).toThrow(
      expect.objectContaining({ name: 'TemplateValidationError' }),
    );
  });
});
