import { getCountries } from 'libphonenumber-js/core';
import metadata from 'libphonenumber-js/min/metadata';
import { describe, expect, it } from 'vitest';
import { buildMessageClassRegistry } from '../../../functions/core/policy/message-class';
import { quietHoursDeferral } from '../../../functions/core/policy/quiet-hours-deferral';
import { isTimeZone } from '../../../functions/core/event/time-zone-name';
import { COUNTRY_ZONES_CLDR_LACKS, recipientZones, timeZonesOfCountry } from '../../../functions/core/policy/recipient-time-zone';
import type { RenderedMessage } from '../../../functions/core/templates/rendered-message';
import { smsCountryTable } from '../../../lib/sms-countries';

const marketing = buildMessageClassRegistry().get('marketing')!;
const text = (to: string): RenderedMessage => ({ channel: 'sms', to, text: 'Offers' });
/** A Kosovo mobile number (+383 44...), Ascension (+247) and Tristan da Cunha (+290 8...). */
const KOSOVO = '+38344123456';
const ASCENSION = '+24740123';
const TRISTAN = '+2908123';

describe('a country with no CLDR time zone silently uses the stack\'s zone (defect: XK, AC and TA have none in Intl)', () => {
  it('a Kosovo number is held 21:30-08:00 Kosovo time, not by the stack\'s zone', () => {
    const countries = smsCountryTable(['XK']);
    expect(recipientZones(text(KOSOVO), countries, 'UTC')).toEqual({ zones: ['Europe/Belgrade'], source: 'country' });
    // 21:30 in Pristina in winter (CET, UTC+1) is 20:30 UTC: outside the window in UTC, inside it in Kosovo.
    const deferral = quietHoursDeferral(marketing, text(KOSOVO), { countries, defaultTimeZone: 'UTC' }, Date.parse('2026-11-30T20:30:00Z'));
    expect(deferral).toEqual({ untilMs: Date.parse('2026-12-01T07:00:00Z'), zones: { zones: ['Europe/Belgrade'], source: 'country' } });
  });

  it('Ascension and Tristan da Cunha numbers keep GMT, the clock of Saint Helena (the ISO country they are part of)', () => {
    const countries = smsCountryTable(['AC', 'TA']);
    expect(recipientZones(text(ASCENSION), countries, 'Asia/Tokyo')).toEqual({ zones: ['Atlantic/St_Helena'], source: 'country' });
    expect(recipientZones(text(TRISTAN), countries, 'Asia/Tokyo')).toEqual({ zones: ['Atlantic/St_Helena'], source: 'country' });
  });

  it('every country libphonenumber knows, so every country smsCountries accepts, has a zone: the platform\'s or the table\'s', () => {
    const without = getCountries(metadata).filter((country) => timeZonesOfCountry(country).length === 0);
    expect(without).toEqual([]);
  });

  it('the table fills only gaps of the platform\'s data, with zones the platform knows', () => {
    for (const [country, zones] of Object.entries(COUNTRY_ZONES_CLDR_LACKS)) {
      const locale = new Intl.Locale(`und-${country}`) as Intl.Locale & { getTimeZones?: () => string[] };
      expect(locale.getTimeZones?.() ?? [], country).toEqual([]);
      for (const zone of zones) expect(isTimeZone(zone), zone).toBe(true);
    }
  });
});
