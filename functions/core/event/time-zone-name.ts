/** The longest zone name the door takes (the longest IANA name, America/Argentina/ComodRivadavia, has 32). */
export const TIME_ZONE_MAX_LENGTH = 64;

/** Whether `name` is a time zone the platform knows (an IANA name such as `Europe/Paris`, or `UTC`), in any case. */
export function isTimeZone(name: string): boolean {
  return canonicalTimeZone(name) !== undefined;
}

/**
 * The platform's own spelling of a zone it knows (`aMERICA/nEW_yORK` is `America/New_York`, `utc` is `UTC`), or
 * undefined. Intl takes a zone in any case, so one zone has 2^n spellings: the door hands on this one, so that nothing
 * keyed by a zone (a formatter cache, a log field) grows with a producer's spellings (review defect 5).
 */
export function canonicalTimeZone(name: string): string | undefined {
  // The default zone, checked at every cold start: the first Intl.DateTimeFormat of a process loads the time-zone
  // data (about 20 ms of CPU), which an urgent message never needs. 'UTC' is Intl's own spelling of it.
  if (name === 'UTC') return name;
  if (name.length === 0 || name.length > TIME_ZONE_MAX_LENGTH) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
