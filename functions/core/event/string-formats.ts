import * as v from 'valibot';

// Text formats the schemas check, each accepting what zod 4.6 (the library before valibot) accepted:
// valibot's own ISO timestamp takes forms zod refused (`+0100`, a space for `T`) and its base64 and URL
// checks differ at the edges, so swapping libraries would have changed what is let in. One departure: zod
// took a fraction of any length, and the event's `occurredAt` is stored on every ledger row (review defect 1).

const DATE =
  '(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8])))';
/** Seconds are required (RFC 3339); a fraction of at most 9 digits (nanoseconds, the finest any clock stamps). */
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,9})?';
/** The longest text {@link isoDatetime} accepts: `2026-11-29T11:59:00.123456789+01:00`. */
export const ISO_DATETIME_MAX_LENGTH = 35;
const ISO_DATETIME_UTC = new RegExp(`^${DATE}T${TIME}Z$`);
const ISO_DATETIME_WITH_OFFSET = new RegExp(`^${DATE}T${TIME}(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)$`);

/** An RFC 3339 date and time (real calendar dates only) in UTC (`Z`), or with `offset` also at `+hh:mm`/`-hh:mm`. */
export function isoDatetime(options: { readonly offset: boolean } = { offset: false }) {
  // The regex alone bounds the length; ISO_DATETIME_MAX_LENGTH lets a schema refuse a long text before it runs.
  return v.regex(options.offset ? ISO_DATETIME_WITH_OFFSET : ISO_DATETIME_UTC, 'Invalid ISO datetime');
}

/** Whether `text` is an RFC 3339 date and time with `Z` or an offset (as {@link isoDatetime} with `offset`). */
export function isIsoDatetimeWithOffset(text: string): boolean {
  return ISO_DATETIME_WITH_OFFSET.test(text);
}

/** The problem a string that is not well-formed Unicode gets: names no value, as every problem (see schema.ts). */
export const NOT_WELL_FORMED = 'Invalid string: not well-formed Unicode (a lone surrogate)';

/**
 * Well-formed Unicode: no lone UTF-16 surrogate, which no channel can carry (UTF-8 has no encoding for one, and
 * the SNS client's query serializer throws on it before the request is sent). A lone surrogate is what
 * `text.slice(0, n)` leaves of a string that ends in an emoji, and what `JSON.stringify` writes as `"\ud83d"`.
 */
export function wellFormed() {
  return v.check((value: string) => value.isWellFormed(), NOT_WELL_FORMED);
}

/** A string that is well-formed Unicode. */
export function wellFormedString() {
  return v.pipe(v.string(), wellFormed());
}

/** Text the WHATWG URL parser takes once trimmed; trimmed, and without the tabs and line breaks the parser ignores. */
export function urlString() {
  return v.pipe(
    v.string(),
    v.check((value) => URL.canParse(value.trim()), 'Invalid URL'),
    v.transform((value) => value.trim().replace(/[\t\n\r]/g, '')),
  );
}

/** Standard base64 with its padding (or empty: atob('') is ''), no whitespace. */
export function base64() {
  return v.check(isBase64, 'Invalid base64-encoded string');
}

function isBase64(value: string): boolean {
  // atob skips whitespace, which would let it in.
  if (/\s/.test(value) || value.length % 4 !== 0) return false;
  try {
    atob(value);
    return true;
  } catch {
    return false;
  }
}
