import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { validate } from '../../../functions/core/schema';
import { base64, isoDatetime, urlString } from '../../../functions/core/event/string-formats';

const accepts = (schema: Parameters<typeof validate>[0], input: string) => validate(schema, input).success;

describe('isoDatetime: RFC 3339 with seconds, real dates', () => {
  const utc = v.pipe(v.string(), isoDatetime());
  const offset = v.pipe(v.string(), isoDatetime({ offset: true }));

  it.each([
    ['2026-11-29T12:00:00Z', true, true],
    ['2026-11-29T12:00:00.123456Z', true, true],
    ['2024-02-29T00:00:00Z', true, true],
    ['2026-11-29T23:59:59+01:00', false, true],
    ['2026-11-29T23:59:59-23:59', false, true],
    ['2026-02-29T12:00:00Z', false, false], // not a leap year
    ['2026-04-31T12:00:00Z', false, false],
    ['2026-11-29T12:00Z', false, false], // seconds are required
    ['2026-11-29T24:00:00Z', false, false],
    ['2026-11-29T12:00:60Z', false, false],
    ['2026-11-29T12:00:00', false, false], // no zone
    ['2026-11-29T12:00:00+0100', false, false],
    ['2026-11-29T12:00:00+24:00', false, false],
    ['2026-11-29 12:00:00Z', false, false],
    ['2026-11-29t12:00:00z', false, false],
    ['2026-11-29T12:00:00.Z', false, false],
  ])('%s: in UTC %s, with an offset %s', (text, inUtc, withOffset) => {
    expect([accepts(utc, text), accepts(offset, text)]).toEqual([inUtc, withOffset]);
  });

  it('says so without the value', () => {
    expect(validate(utc, 'yesterday')).toEqual({ success: false, problems: [{ path: '', message: 'Invalid ISO datetime' }] });
  });
});

describe('urlString: what the URL parser takes, trimmed', () => {
  it.each([
    ['https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe', 'https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe'],
    [' https://example.com/a ', 'https://example.com/a'],
    // The parser itself strips only spaces and controls; a leading no-break space or BOM is trimmed first.
    ['\u00A0https://example.com/a', 'https://example.com/a'],
    ['\uFEFFhttps://example.com/a', 'https://example.com/a'],
    ['https://exa\nmple.com/\ta', 'https://example.com/a'],
    ['mailto:someone@example.com', 'mailto:someone@example.com'],
  ])('takes %j as %j', (text, output) => {
    expect(validate(urlString(), text)).toEqual({ success: true, output });
  });

  it.each(['not a url', '//example.com', '', 'https://'])('refuses %j', (text) => {
    expect(validate(urlString(), text)).toEqual({ success: false, problems: [{ path: '', message: 'Invalid URL' }] });
  });
});

describe('base64: padded, no whitespace', () => {
  const schema = v.pipe(v.string(), base64());

  it.each([
    ['', true],
    ['aGVsbG8=', true],
    ['aGVsbA==', true],
    ['aGVsbG8h', true],
    ['aGVsbA=', false], // padding short
    ['aGVsbA', false],
    ['aGV sbA==', false],
    ['aGVsbA==\n', false],
    ['a===', false],
    ['ab=c', false],
    ['aGVs-A==', false], // base64url is not base64
  ])('%j: %s', (text, valid) => {
    expect(accepts(schema, text)).toBe(valid);
  });

  it('says so without the value', () => {
    expect(validate(schema, 'aGV sbA==')).toEqual({ success: false, problems: [{ path: '', message: 'Invalid base64-encoded string' }] });
  });
});
