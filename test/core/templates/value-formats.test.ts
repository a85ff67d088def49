import { describe, expect, it } from 'vitest';
import type { TemplateField } from '../../../functions/core/templates/template-definition';
import { writeValue } from '../../../functions/core/templates/value-formats';

const field = (format: TemplateField['format'], currency?: string): TemplateField => ({ maxLength: 64, charset: 'unicode', format, ...(currency ? { currency } : {}) });
const text = (result: ReturnType<typeof writeValue>) => (result.ok ? result.text : result.problem);

describe('values written per locale with the platform\'s Intl', () => {
  it.each([
    ['de', '1.234,5'],
    ['de-CH', "1'234.5"],
    ['en', '1,234.5'],
    ['fr', '1\u202f234,5'],
  ])('a number in %s: %j', (locale, written) => {
    expect(text(writeValue(field('number'), 1234.5, { locale }))).toBe(written);
  });

  it.each([
    ['de', '1.234,50\u00a0€'],
    ['de-AT', '€\u00a01.234,50'],
    ['en-US', '€1,234.50'],
  ])('an amount in EUR in %s: %j, a decimal string taken exactly', (locale, written) => {
    expect(text(writeValue(field('currency', 'EUR'), '1234.50', { locale }))).toBe(written);
  });

  it('a date in the recipient\'s zone: the same instant is 1 March in Berlin and 28 February in Los Angeles', () => {
    const instant = '2026-03-01T05:00:00Z';
    expect(text(writeValue(field('date'), instant, { locale: 'de', timeZone: 'Europe/Berlin' }))).toBe('1. März 2026');
    expect(text(writeValue(field('date'), instant, { locale: 'en-US', timeZone: 'America/Los_Angeles' }))).toBe('February 28, 2026');
  });

  it('a time without the recipient\'s zone is written in UTC, and says so', () => {
    expect(text(writeValue(field('time'), Date.parse('2026-03-01T17:30:00Z'), { locale: 'de' }))).toBe('17:30 UTC');
    expect(text(writeValue(field('time'), '2026-03-01T17:30:00Z', { locale: 'de', timeZone: 'Europe/Vienna' }))).toBe('18:30');
  });

  it('in an SMS, Intl\'s no-break spaces become plain ones (neither is GSM-7)', () => {
    expect(text(writeValue(field('currency', 'EUR'), 12.5, { locale: 'de', plainSpaces: true }))).toBe('12,50 €');
  });

  it.each([
    ['number', 'twelve'],
    ['number', '1e5'],
    ['currency', true],
    ['date', '2026-04-02'],
    ['datetime', 'tomorrow'],
    ['time', 9e15],
  ] as const)('a %s field refuses %j, naming its format, never the value', (format, value) => {
    const written = writeValue(field(format, format === 'currency' ? 'EUR' : undefined), value, { locale: 'en' });
    expect(written.ok).toBe(false);
    expect(text(written)).toMatch(new RegExp(`^is not a (number|time) \\(format ${format}`));
    expect(text(written)).not.toContain(String(value));
  });

  it('a field without a format is the value as given', () => {
    expect(text(writeValue({ maxLength: 5, charset: 'unicode' }, 1234.5, { locale: 'de' }))).toBe('1234.5');
  });
});
