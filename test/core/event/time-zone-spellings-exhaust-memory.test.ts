import { describe, expect, it } from 'vitest';
import { parseNotificationBody } from '../../../functions/core/event/notification-event';
import { localMinutesAt, TIME_ZONE_FORMATTERS_KEPT, timeZoneFormattersCached } from '../../../functions/core/policy/quiet-hours';
import { loginCodeEvent } from '../../support/events';

/** The `i`-th spelling of `zone` in mixed case (bit k of `i` upper-cases letter k). */
function caseVariant(zone: string, i: number): string {
  let letter = 0;
  return [...zone].map((c) => (/[a-z]/i.test(c) ? ((i >> letter++) & 1 ? c.toUpperCase() : c.toLowerCase()) : c)).join('');
}

/**
 * Review defect 5: the door took any spelling of a zone that Intl takes (any case), and quiet hours cached one
 * formatter per raw string without bound: 5,000 case variants of one zone added 142 MB of RSS, and about 18,000
 * fill a 512 MB sender. The door now hands on the canonical name, and the cache keyed by it is bounded.
 */
describe('hostile time-zone spellings exhaust memory (review defect 5)', () => {
  it('the door canonicalises a zone spelled in any case', () => {
    for (const [spelling, canonical] of [['aMERICA/nEW_yORK', 'America/New_York'], ['europe/paris', 'Europe/Paris'], ['utc', 'UTC']] as const) {
      const body = JSON.stringify(loginCodeEvent({ recipients: [{ recipientId: 'user-9', phone: '+14155550101', timeZone: spelling, channels: ['sms'] }] }));
      expect(parseNotificationBody(body).event.recipients[0]!.timeZone).toBe(canonical);
    }
  });

  it('5,000 spellings of one zone reach quiet hours as one, and the formatters kept stay bounded whatever reaches it', () => {
    const atMs = Date.parse('2026-11-29T12:00:00Z');
    const zones = new Set<string>();
    for (let i = 0; i < 5_000; i += 1) {
      const body = JSON.stringify(loginCodeEvent({ recipients: [{ recipientId: 'user-9', phone: '+14155550101', timeZone: caseVariant('America/Argentina/ComodRivadavia', i), channels: ['sms'] }] }));
      zones.add(parseNotificationBody(body).event.recipients[0]!.timeZone!);
    }
    expect(zones.size).toBe(1);
    // Spellings that did not pass the door (a row stored before it canonicalised): the cache stays bounded.
    for (let i = 0; i < 5_000; i += 1) expect(localMinutesAt(caseVariant('America/Argentina/ComodRivadavia', i), atMs)).toBe(9 * 60);
    expect(timeZoneFormattersCached()).toBeLessThanOrEqual(TIME_ZONE_FORMATTERS_KEPT);
  });
});
