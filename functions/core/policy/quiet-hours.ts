import * as v from 'valibot';
import { CHANNELS, type Channel } from '../event/idempotency-key';
import { jsonStrictObject } from '../json-objects';

/**
 * A class's quiet hours: a daily window of the recipient's local time in which its messages are not
 * sent but deferred to the window's end (never dropped, never sent early). The window may cross
 * midnight (`21:00`-`08:00`); `start` is inside it, `end` is the first minute outside.
 */
export interface QuietHours {
  /** `HH:MM`, 24-hour, local time. */
  readonly start: string;
  /** `HH:MM`, 24-hour, local time. */
  readonly end: string;
  /** The channels the window holds back. */
  readonly channels: readonly Channel[];
}

const CLOCK_TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
const clockTime = v.pipe(v.string(), v.regex(CLOCK_TIME, 'must be a 24-hour time HH:MM'));

/** How a deployment writes quiet hours in a class (`MESSAGE_CLASSES`); `null` removes a built-in class's. */
export const QUIET_HOURS_SCHEMA = v.nullable(
  v.pipe(
    jsonStrictObject({
      start: clockTime,
      end: clockTime,
      channels: v.optional(v.pipe(v.array(v.picklist(CHANNELS)), v.minLength(1)), ['sms']),
    }),
    v.check((q) => q.start !== q.end, 'start and end must differ (an empty or a whole-day window is no quiet hours)'),
  ),
);

/** Minutes since local midnight of an `HH:MM` time. */
export function minutesOf(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

/** The window's length in minutes (crossing midnight counts on into the next day). */
export function windowMinutes(q: Pick<QuietHours, 'start' | 'end'>): number {
  return (minutesOf(q.end) - minutesOf(q.start) + 1440) % 1440;
}

/** Whether `localMinutes` (since local midnight) falls inside the window. */
export function insideWindow(q: Pick<QuietHours, 'start' | 'end'>, localMinutes: number): boolean {
  const start = minutesOf(q.start);
  const end = minutesOf(q.end);
  return start < end ? localMinutes >= start && localMinutes < end : localMinutes >= start || localMinutes < end;
}

/**
 * Formatters kept at most: more than the zones the platform knows (418 on Node 24), so the canonical names the door
 * hands on never push one out, while spellings that never passed it (a row stored before the door canonicalised)
 * cannot grow the cache past it (each formatter holds about 28 KB; review defect 5).
 */
export const TIME_ZONE_FORMATTERS_KEPT = 1_000;

// One formatter per zone: building one costs far more than using it. A Map in insertion order, the oldest dropped
// first: a capped Map does it, where a cache library would add to every Lambda's bundle.
const formatters = new Map<string, Intl.DateTimeFormat>();

/** How many formatters are kept now (at most {@link TIME_ZONE_FORMATTERS_KEPT}). */
export function timeZoneFormattersCached(): number {
  return formatters.size;
}

/** Minutes since local midnight in `timeZone` at `atMs`, by the platform's time-zone data (Intl). */
export function localMinutesAt(timeZone: string, atMs: number): number {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit' });
    if (formatters.size >= TIME_ZONE_FORMATTERS_KEPT) formatters.delete(formatters.keys().next().value!);
    formatters.set(timeZone, format);
  }
  let hour = 0;
  let minute = 0;
  for (const part of format.formatToParts(atMs)) {
    if (part.type === 'hour') hour = Number(part.value);
    if (part.type === 'minute') minute = Number(part.value);
  }
  return hour * 60 + minute;
}

const MINUTE_MS = 60_000;

/**
 * The first instant at or after `nowMs` outside the window in `timeZone`, or undefined when `nowMs`
 * is outside it already. Jumps by the local clock, then checks minute by minute against the zone's
 * real offsets, so a daylight-saving change inside the window moves the end with the wall clock
 * (an end in a skipped hour is the first minute after it).
 */
export function windowEndIn(q: Pick<QuietHours, 'start' | 'end'>, timeZone: string, nowMs: number): number | undefined {
  const inside = (t: number) => insideWindow(q, localMinutesAt(timeZone, t));
  if (!inside(nowMs)) return undefined;
  const minuteStart = nowMs - (nowMs % MINUTE_MS);
  let t = minuteStart + ((minutesOf(q.end) - localMinutesAt(timeZone, nowMs) + 1440) % 1440) * MINUTE_MS;
  // An offset change made the jump short: walk on to the end (a window is at most a day).
  for (let steps = 0; inside(t) && steps < 1500; steps += 1) t += MINUTE_MS;
  // ...or long: walk back while the minute before is outside too.
  while (t - MINUTE_MS > nowMs && !inside(t - MINUTE_MS)) t -= MINUTE_MS;
  return Math.max(t, nowMs);
}

/**
 * When a message may be sent to a recipient who may be in any of `timeZones` (one, or every zone of a
 * country): the first instant at or after `nowMs` that is outside the window in all of them, or
 * undefined when that is now. Several zones err on the side of waiting: the message is held while it
 * is quiet time in any of them.
 */
export function quietUntil(q: Pick<QuietHours, 'start' | 'end'>, timeZones: readonly string[], nowMs: number): number | undefined {
  let t = nowMs;
  // Each round moves past the end of every zone still inside; zones are hours apart, so few rounds do.
  for (let round = 0; round < 50; round += 1) {
    const ends = timeZones.map((zone) => windowEndIn(q, zone, t)).filter((end): end is number => end !== undefined);
    if (ends.length === 0) return t === nowMs ? undefined : t;
    t = Math.max(...ends);
  }
  return t;
}
