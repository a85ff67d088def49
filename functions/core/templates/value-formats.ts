import { isIsoDatetimeWithOffset } from '../event/string-formats';
import type { TemplateField, ValueFormat } from './template-definition';

/** Where a value is written: the message's format locale and, for dates and times, the recipient's time zone. */
export interface ValueContext {
  /** A canonical BCP 47 tag (template-locale.ts `formatLocale`). */
  readonly locale: string;
  /** The recipient's IANA time zone, when the event gives one. @default UTC, and times then name their zone */
  readonly timeZone?: string;
  /**
   * Whether the text goes into an SMS: Intl's no-break spaces (`1.234,50 €` has U+00A0, a French `1 234` U+202F)
   * become plain spaces there, as neither is in GSM-7 and one would turn the whole text into UCS-2. @default false
   */
  readonly plainSpaces?: boolean;
}

export type WrittenValue = { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: string };

/** An exact decimal as a string (`"1234.50"`): Intl writes it without a detour through a binary float. */
const DECIMAL = /^-?\d{1,21}(?:\.\d{1,20})?$/;
/** The widest epoch-ms range a Date holds (ECMA-262 21.4.1.22, "Time Values and Time Range"). */
const MAX_TIME_MS = 8.64e15;

/** What Intl writes for each date and time format: the same shape in every locale, so a translator need not choose. */
const DATE_PARTS: Readonly<Record<'date' | 'time' | 'datetime', Intl.DateTimeFormatOptions>> = {
  date: { year: 'numeric', month: 'long', day: 'numeric' },
  time: { hour: 'numeric', minute: '2-digit' },
  datetime: { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit' },
};

/** Formatters are costly to build and the same few serve every message: kept, up to a bound (locales come from events). */
const MAX_FORMATTERS = 256;
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

/**
 * `value` written as its field declares, with the platform's Intl: `number` and `currency` (a JSON number or a
 * decimal string) in the locale's digits and separators, `currency` with the field's ISO 4217 code; `date`, `time`
 * and `datetime` (an RFC 3339 time with offset, or epoch ms) in the locale and the recipient's zone, else in UTC
 * with the zone named. A field without a format is the value as given. A value of the wrong kind is a problem that
 * names the field's format, never the value. Pure (the formatter cache aside).
 */
export function writeValue(field: TemplateField, value: string | number | boolean, ctx: ValueContext): WrittenValue {
  const written = field.format === undefined ? { ok: true as const, text: String(value) } : writeFormatted(field.format, field.currency, value, ctx);
  return written.ok && ctx.plainSpaces ? { ok: true, text: written.text.replace(/[\u00A0\u202F]/g, ' ') } : written;
}

function writeFormatted(format: ValueFormat, currency: string | undefined, value: string | number | boolean, ctx: ValueContext): WrittenValue {
  if (format === 'number' || format === 'currency') {
    const amount = typeof value === 'number' ? (Number.isFinite(value) ? value : undefined) : typeof value === 'string' && DECIMAL.test(value) ? value : undefined;
    if (amount === undefined) return { ok: false, problem: `is not a number (format ${format}: a JSON number or a decimal string such as "12.50")` };
    const options: Intl.NumberFormatOptions = format === 'currency' ? { style: 'currency', currency: currency ?? 'XXX' } : {};
    const formatter = formatterFor(`n|${ctx.locale}|${format}|${currency ?? ''}`, () => new Intl.NumberFormat(ctx.locale, options));
    // Intl.NumberFormat takes a decimal string exactly (ECMA-402 "StringNumericLiteral"); the lib's type lists number | bigint only.
    return { ok: true, text: (formatter as Intl.NumberFormat).format(amount as number) };
  }
  const ms = typeof value === 'number' ? value : typeof value === 'string' && isIsoDatetimeWithOffset(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_TIME_MS) {
    return { ok: false, problem: `is not a time (format ${format}: an RFC 3339 time with offset such as "2026-03-01T12:00:00Z", or epoch milliseconds)` };
  }
  const zoneNamed = ctx.timeZone === undefined && format !== 'date';
  const timeZone = ctx.timeZone ?? 'UTC';
  const formatter = formatterFor(`d|${ctx.locale}|${format}|${timeZone}|${zoneNamed}`, () =>
    new Intl.DateTimeFormat(ctx.locale, { ...DATE_PARTS[format], timeZone, ...(zoneNamed ? { timeZoneName: 'short' } : {}) }),
  );
  return { ok: true, text: (formatter as Intl.DateTimeFormat).format(ms) };
}

function formatterFor(key: string, make: () => Intl.NumberFormat | Intl.DateTimeFormat): Intl.NumberFormat | Intl.DateTimeFormat {
  let formatter = formatters.get(key);
  if (!formatter) {
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatter = make();
    formatters.set(key, formatter);
  }
  return formatter;
}
