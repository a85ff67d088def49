import { afterEach, describe, expect, it, vi } from 'vitest';
import { canonicalTimeZone, isTimeZone } from '../../../functions/core/event/time-zone-name';
import { loadSenderConfig } from '../../../functions/core/sender-config';

afterEach(() => vi.restoreAllMocks());

/**
 * Issue 50: the first Intl.DateTimeFormat of a process loads the platform's time-zone data, about 20 ms of CPU at a
 * cold start on a loaded 2-core machine (node -e, Node 24). The sender's configuration checks its default zone for
 * quiet hours, UTC, at every cold start; an urgent message needs no zone at all. UTC is answered without Intl.
 */
describe('time-zone names', () => {
  it('UTC is the platform\'s own spelling of UTC, answered without building a formatter', () => {
    const built = vi.spyOn(Intl, 'DateTimeFormat');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(isTimeZone('UTC')).toBe(true);
    expect(built).not.toHaveBeenCalled();
    built.mockRestore();
    expect(new Intl.DateTimeFormat('en-US', { timeZone: 'UTC' }).resolvedOptions().timeZone).toBe('UTC');
  });

  it('the sender\'s cold start with the default quiet-hours zone builds no date formatter', () => {
    const built = vi.spyOn(Intl, 'DateTimeFormat');
    const config = loadSenderConfig({ LEDGER_TABLE_NAME: 'ledger', FUNCTION_TIMEOUT_SECONDS: '30', CLAIM_TIMEOUT_SECONDS: '60', DELIVERY_MODE: 'outbox', OUTBOX_FILE: '/tmp/never.jsonl' });
    expect(config.defaultTimeZone).toBe('UTC');
    expect(built).not.toHaveBeenCalled();
  });

  it('any other spelling, and any other zone, is still the platform\'s answer', () => {
    expect(canonicalTimeZone('utc')).toBe('UTC');
    expect(canonicalTimeZone('europe/paris')).toBe('Europe/Paris');
    expect(canonicalTimeZone('Mars/Olympus')).toBeUndefined();
    expect(canonicalTimeZone('')).toBeUndefined();
  });
});
