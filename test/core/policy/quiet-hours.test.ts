import { describe, expect, it } from 'vitest';
import { buildMessageClassRegistry } from '../../../functions/core/policy/message-class';
import { insideWindow, localMinutesAt, minutesOf, quietUntil, windowEndIn, windowMinutes } from '../../../functions/core/policy/quiet-hours';
import { quietHoursDeferral } from '../../../functions/core/policy/quiet-hours-deferral';
import { isTimeZone } from '../../../functions/core/event/time-zone-name';
import { recipientZones, timeZonesOfCountry, zoneSpreadMinutes } from '../../../functions/core/policy/recipient-time-zone';
import type { RenderedMessage } from '../../../functions/core/templates/rendered-message';
import { smsCountryTable } from '../../../lib/sms-countries';

const night = { start: '21:00', end: '08:00' };
const classes = buildMessageClassRegistry();
const marketing = classes.get('marketing')!;
const text = (to: string, timeZone?: string): RenderedMessage => ({ channel: 'sms', to, text: 'Offers', ...(timeZone ? { timeZone } : {}) });
const at = (iso: string) => Date.parse(iso);

describe('the quiet-hours window in local time', () => {
  it('crosses midnight: 21:00 is inside, 07:59 inside, 08:00 outside, 20:59 outside', () => {
    expect(insideWindow(night, minutesOf('21:00'))).toBe(true);
    expect(insideWindow(night, minutesOf('23:30'))).toBe(true);
    expect(insideWindow(night, minutesOf('07:59'))).toBe(true);
    expect(insideWindow(night, minutesOf('08:00'))).toBe(false);
    expect(insideWindow(night, minutesOf('20:59'))).toBe(false);
    expect(windowMinutes(night)).toBe(11 * 60);
  });

  it('a window within one day: 13:00-14:00 holds 13:30 only', () => {
    const lunch = { start: '13:00', end: '14:00' };
    expect([minutesOf('12:59'), minutesOf('13:00'), minutesOf('13:59'), minutesOf('14:00')].map((m) => insideWindow(lunch, m))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });

  it('reads local time from the platform: 23:30 UTC is 18:30 in New York in winter, 19:30 in summer', () => {
    expect(localMinutesAt('America/New_York', at('2026-01-15T23:30:00Z'))).toBe(minutesOf('18:30'));
    expect(localMinutesAt('America/New_York', at('2026-07-15T23:30:00Z'))).toBe(minutesOf('19:30'));
  });
});

describe('when a held message may go: the window end in the recipient zone', () => {
  it('23:30 in New York is held until 08:00 the next morning, New York time', () => {
    const now = at('2026-11-30T04:30:00Z'); // 23:30 EST on the 29th
    expect(new Date(windowEndIn(night, 'America/New_York', now)!).toISOString()).toBe('2026-11-30T13:00:00.000Z');
  });

  it('outside the window nothing is held', () => {
    expect(windowEndIn(night, 'America/New_York', at('2026-11-30T15:00:00Z'))).toBeUndefined();
  });

  it('the night daylight saving starts (clocks skip 02:00-03:00) the end is still 08:00 local, one hour less away', () => {
    const now = at('2026-03-08T04:30:00Z'); // 23:30 EST on the 7th; DST starts on the 8th at 02:00
    expect(new Date(windowEndIn(night, 'America/New_York', now)!).toISOString()).toBe('2026-03-08T12:00:00.000Z'); // 08:00 EDT
  });

  it('an end inside the hour that is skipped is the first minute after it', () => {
    const now = at('2026-03-08T06:30:00Z'); // 01:30 EST
    const until = windowEndIn({ start: '01:00', end: '02:30' }, 'America/New_York', now)!;
    expect(new Date(until).toISOString()).toBe('2026-03-08T07:00:00.000Z'); // 03:00 EDT: 02:00-02:59 never happen
  });

  it('the end is never before now, to the minute', () => {
    const now = at('2026-11-30T12:59:30Z'); // 07:59:30 EST
    expect(windowEndIn(night, 'America/New_York', now)).toBe(at('2026-11-30T13:00:00Z'));
  });

  it('several possible zones wait until it is no longer quiet in any of them', () => {
    // 08:00 in New York is 05:00 in Los Angeles: wait for 08:00 there too.
    const now = at('2026-11-30T12:30:00Z');
    expect(new Date(quietUntil(night, ['America/New_York', 'America/Los_Angeles'], now)!).toISOString()).toBe('2026-11-30T16:00:00.000Z');
    expect(quietUntil(night, ['America/New_York', 'America/Los_Angeles'], at('2026-11-30T20:00:00Z'))).toBeUndefined();
  });
});

describe("how far apart a country's clocks are: what quiet hours may add for a number with no timeZone", () => {
  it('is 0 for one zone, and for zones whose clocks always agree', () => {
    expect(zoneSpreadMinutes(timeZonesOfCountry('GB'))).toBe(0);
    expect(zoneSpreadMinutes(['Europe/Berlin', 'Europe/Busingen'])).toBe(0);
    expect(zoneSpreadMinutes([])).toBe(0);
  });

  it('is 6 hours for the US: New York on summer time (UTC-4) to Honolulu (UTC-10, no summer time)', () => {
    expect(zoneSpreadMinutes(timeZonesOfCountry('US'))).toBe(6 * 60);
    // Alaska's zones sit between them: Anchorage UTC-9/-8, Adak UTC-10/-9.
    expect(zoneSpreadMinutes(['America/New_York', 'America/Anchorage', 'America/Adak'])).toBe(5 * 60);
    // Newfoundland's half hour: St. John's UTC-3:30/-2:30 to Vancouver UTC-8/-7.
    expect(zoneSpreadMinutes(['America/St_Johns', 'America/Vancouver'])).toBe(4 * 60 + 30);
  });

  it('is measured on the 24-hour dial: zones either side of the date line are an hour apart, not 23', () => {
    // Pacific/Midway UTC-11, Pacific/Wake UTC+12: 22:00 at Midway is 21:00 the next day at Wake.
    expect(zoneSpreadMinutes(['Pacific/Midway', 'Pacific/Wake'])).toBe(60);
    // Kaliningrad UTC+2 to Kamchatka UTC+12.
    expect(zoneSpreadMinutes(timeZonesOfCountry('RU'))).toBe(10 * 60);
  });

  it("bounds how long a US or Canadian number with no timeZone really waits, over the weeks the clocks change (window + 1 h + spread)", () => {
    const weeks = [at('2026-03-06T00:00:00Z'), at('2026-10-30T00:00:00Z')];
    for (const country of ['US', 'CA']) {
      const zones = timeZonesOfCountry(country);
      let longest = 0;
      for (const start of weeks) {
        for (let t = start; t < start + 7 * 86_400_000; t += 30 * 60_000) longest = Math.max(longest, (quietUntil(night, zones, t) ?? t) - t);
      }
      const bound = (windowMinutes(night) + 60 + zoneSpreadMinutes(zones)) * 60_000;
      expect(longest, country).toBeLessThanOrEqual(bound);
      // ...and the bound is not loose by more than the hour kept for a change of the clocks.
      expect(longest, country).toBeGreaterThanOrEqual(bound - 3_600_000);
    }
  });
});

describe('whose time: the recipient, the number country, the stack default', () => {
  const gbAndUs = smsCountryTable(['GB', 'US']);

  it('knows IANA zones and refuses anything else', () => {
    expect(['Europe/Paris', 'America/New_York', 'UTC'].map(isTimeZone)).toEqual([true, true, true]);
    expect(['Mars/Olympus', '', 'Europe/Paris; DROP'].map(isTimeZone)).toEqual([false, false, false]);
  });

  it('the country zones come from the platform CLDR data: one for GB, many for US', () => {
    expect(timeZonesOfCountry('GB')).toEqual(['Europe/London']);
    expect(timeZonesOfCountry('US').length).toBeGreaterThan(5);
  });

  it('the recipient own zone comes first, then the number country, then the default', () => {
    expect(recipientZones(text('+447400123456', 'Asia/Tokyo'), gbAndUs, 'UTC')).toEqual({ zones: ['Asia/Tokyo'], source: 'recipient' });
    expect(recipientZones(text('+447400123456'), gbAndUs, 'UTC')).toEqual({ zones: ['Europe/London'], source: 'country' });
    expect(recipientZones(text('+447400123456'), undefined, 'Europe/Berlin')).toEqual({ zones: ['Europe/Berlin'], source: 'default' });
    // A number the table names no country for: the stack's zone.
    expect(recipientZones(text('+33612345678'), gbAndUs, 'UTC')).toEqual({ zones: ['UTC'], source: 'default' });
  });
});

describe('which messages quiet hours hold', () => {
  const where = { countries: undefined, defaultTimeZone: 'UTC' };
  const lateEvening = at('2026-11-29T23:30:00Z');

  it('a marketing text at 23:30 recipient time waits for 08:00', () => {
    expect(quietHoursDeferral(marketing, text('+14155550100', 'UTC'), where, lateEvening)?.untilMs).toBe(at('2026-11-30T08:00:00Z'));
  });

  it('otp and transactional texts are never held, at any hour', () => {
    for (const name of ['otp', 'transactional']) {
      expect(quietHoursDeferral(classes.get(name)!, text('+14155550100', 'UTC'), where, lateEvening)).toBeUndefined();
    }
  });

  it('a marketing e-mail or push is not held by the built-in window (texts only)', () => {
    expect(quietHoursDeferral(marketing, { channel: 'email', to: 'a@example.com', subject: 's', text: 't' }, where, lateEvening)).toBeUndefined();
  });
});

describe('consent and quiet hours are class data', () => {
  it('marketing is bulk with 21:00-08:00 for texts; otp and transactional are not bulk and have none', () => {
    expect(marketing).toMatchObject({ bulk: true, quietHours: { start: '21:00', end: '08:00', channels: ['sms'] } });
    for (const name of ['otp', 'transactional']) expect(classes.get(name)).toMatchObject({ bulk: false, quietHours: undefined });
  });

  it('an override keeps the built-in consent policy unless it says otherwise; null removes quiet hours', () => {
    const custom = buildMessageClassRegistry(
      JSON.stringify([
        { name: 'marketing', onAmbiguous: 'give-up' },
        { name: 'newsletter', onAmbiguous: 'give-up', bulk: true, quietHours: { start: '20:00', end: '08:00', channels: ['sms', 'push'] } },
        { name: 'digest', onAmbiguous: 'give-up', bulk: true, quietHours: null },
      ]),
    );
    expect(custom.get('marketing')).toMatchObject({ bulk: true, quietHours: { start: '21:00' } });
    expect(custom.get('newsletter')).toMatchObject({ bulk: true, quietHours: { start: '20:00', channels: ['sms', 'push'] } });
    expect(custom.get('digest')).toMatchObject({ bulk: true, quietHours: undefined });
  });

  it('refuses otp or transactional as bulk, quiet hours on a class that is not bulk, and a window that is not one', () => {
    expect(() => buildMessageClassRegistry(JSON.stringify([{ name: 'otp', onAmbiguous: 'resend', bulk: true }]))).toThrow(
      'MESSAGE_CLASSES is invalid: otp: is never bulk',
    );
    expect(() =>
      buildMessageClassRegistry(JSON.stringify([{ name: 'alerts', onAmbiguous: 'resend', quietHours: { start: '22:00', end: '07:00' } }])),
    ).toThrow(/alerts: quietHours need "bulk": true/);
    expect(() =>
      buildMessageClassRegistry(JSON.stringify([{ name: 'x', onAmbiguous: 'give-up', bulk: true, quietHours: { start: '25:00', end: '07:00' } }])),
    ).toThrow(/quietHours.start: must be a 24-hour time HH:MM/);
    expect(() =>
      buildMessageClassRegistry(JSON.stringify([{ name: 'x', onAmbiguous: 'give-up', bulk: true, quietHours: { start: '07:00', end: '07:00' } }])),
    ).toThrow(/start and end must differ/);
  });
});
