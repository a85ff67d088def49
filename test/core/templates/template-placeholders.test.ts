import fc from 'fast-check';
import Mustache from 'mustache';
import { describe, expect, it } from 'vitest';
import { escapeHtml, fillPlaceholders, scanPlaceholders } from '../../../functions/core/templates/template-placeholders';

/** Fills a text that must scan cleanly. */
function fill(text: string, values: Record<string, string>, html: boolean): string {
  const scan = scanPlaceholders(text);
  if (!scan.ok) throw new Error(scan.problems.join('; '));
  return fillPlaceholders(scan.pieces, values, html);
}

describe('template placeholders', () => {
  it('reads {{field}} with or without inner spaces, fields in order of first use', () => {
    expect(scanPlaceholders('Hi {{ name }}, order {{order_1}} for {{name}}.')).toEqual({
      ok: true,
      pieces: [{ text: 'Hi ' }, { field: 'name' }, { text: ', order ' }, { field: 'order_1' }, { text: ' for ' }, { field: 'name' }, { text: '.' }],
      fields: ['name', 'order_1'],
    });
  });

  it('drops comments, and leaves single braces and a lone }} as text', () => {
    expect(fill('a{{! note }}b { c } d}}', {}, false)).toBe('ab { c } d}}');
  });

  it('refuses a tag that is not a field name, and one never closed', () => {
    expect(scanPlaceholders('{{a.b}} {{ }} {{x')).toEqual({
      ok: false,
      problems: [
        'the tag {{a.b}} at character 0 is not a placeholder: a field name is letters, digits and _ (not first)',
        'the tag {{ }} at character 8 is not a placeholder: a field name is letters, digits and _ (not first)',
        'the tag at character 14 is never closed (}})',
      ],
    });
    expect(scanPlaceholders('{{{x}}')).toEqual({ ok: false, problems: ['the tag at character 0 is never closed (}}})'] });
  });

  it('refuses a closing section tag on its own, saying it closes a section', () => {
    expect(scanPlaceholders('Hi {{/x}}')).toEqual({
      ok: false,
      problems: ['the tag {{/x}} at character 3 closes a section; templates hold no logic: only {{field}} placeholders'],
    });
  });

  it('escapes exactly what mustache.js escapes, with the same entities', () => {
    expect(escapeHtml(`&<>"'/\`= plain`)).toBe('&amp;&lt;&gt;&quot;&#39;&#x2F;&#x60;&#x3D; plain');
  });

  it('renders as mustache.js does, escaped in HTML and as is in text', () => {
    const name = fc.constantFrom('a', 'b', 'name_1');
    const literal = fc.string({ unit: fc.constantFrom(...'xy <>&"\'/`=\n{}'.split('')) }).filter((s) => !s.includes('{{') && !s.includes('}}'));
    const template = fc.array(fc.oneof(literal, name.map((n) => `{{${n}}}`), name.map((n) => `{{ ${n} }}`)), { maxLength: 12 }).map((p) => p.join(''));
    const value = fc.string({ unit: fc.constantFrom(...'v <>&"\'/`={}\n'.split('')) });
    fc.assert(
      fc.property(template, fc.record({ a: value, b: value, name_1: value }), (text, values) => {
        // A literal ending in `{` against a tag's `{{` reads differently in each; keep the comparison to clean texts.
        fc.pre(!text.includes('{{{') && !/\{\{[^}]*\{/.test(text));
        // Two literals can join into a `{{` or `}}` that is no generated tag (an unclosed tag is a refusal, tested above).
        fc.pre(!/\{\{|\}\}/.test(text.replace(/\{\{ ?(?:a|b|name_1) ?\}\}/g, '')));
        expect(fill(text, values, true)).toBe(Mustache.render(text, values));
        expect(fill(text, values, false)).toBe(Mustache.render(text, values, undefined, { escape: (v: unknown) => String(v) }));
      }),
      { numRuns: 300 },
    );
  });
});
