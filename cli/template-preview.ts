import type { Template } from '../functions/core/templates/template-definition';
import type { LocaleResolution } from '../functions/core/templates/template-locale';
import type { TemplateValue } from '../functions/core/templates/templates';

/** A sample time for date and time fields: a fixed instant, so a preview reads the same on any day. */
const SAMPLE_TIME = '2026-03-01T17:30:00Z';

/**
 * A value for each declared field, for a preview without `--data`: `<name>` for plain text (nines when that is longer than its maxLength), 1234.5 for a number
 * or an amount, a fixed instant for a date or time; SES's unsubscribe link stays for SES.
 */
export function sampleData(template: Template): Record<string, TemplateValue> {
  return Object.fromEntries(
    Object.entries(template.fields).map(([name, field]) => {
      if (field.format === 'number' || field.format === 'currency') return [name, 1234.5];
      if (field.format !== undefined) return [name, SAMPLE_TIME];
      const sample = `<${name}>`;
      return [name, sample.length <= field.maxLength ? sample : '9'.repeat(field.maxLength)];
    }),
  );
}

/** `locale de-AT: variant de (chain de-AT → de); values in de-AT`, and why the default was used when it was. */
export function describeResolution(requested: string | undefined, resolution: LocaleResolution, locales: readonly string[]): string {
  const asked = requested === undefined ? 'no locale given' : `locale ${JSON.stringify(requested)}`;
  const lines = [
    `${asked}: variant ${resolution.locale} (chain ${resolution.chain.join(' → ')}); values written in ${resolution.formatLocale}`,
    `variants: ${locales.join(', ')}`,
  ];
  if (resolution.fallback) lines.push(`the default locale, counted as LocaleFallback reason ${resolution.fallback}`);
  return lines.join('\n');
}

