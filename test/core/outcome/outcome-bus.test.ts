import { describe, expect, it } from 'vitest';
import { PUT_EVENTS_MAX_BYTES, putEventsChunks, putEventsEntryBytes } from '../../../functions/core/outcome/outcome-bus';
import type { OutcomeEventDetail } from '../../../functions/core/outcome/outcome-event';

const detail = (key: string, reasonBytes = 0): OutcomeEventDetail => ({
  version: 1,
  outcomeId: 'o'.repeat(32),
  sequence: '0'.repeat(33),
  key,
  eventId: 'e',
  recipientId: 'r',
  channel: 'email',
  templateId: 't',
  messageClass: 'otp',
  state: 'FAILED',
  ...(reasonBytes ? { reason: 'x'.repeat(reasonBytes) } : {}),
  claimVersion: 1,
  occurredAt: '2026-11-29T11:59:00Z',
  stateAt: '2026-11-29T12:00:00.000Z',
});

describe('PutEvents chunks', () => {
  it('hold at most 10 entries, in order', () => {
    const events = Array.from({ length: 23 }, (_, i) => detail(String(i)));
    const chunks = putEventsChunks(events);
    expect(chunks.map((c) => c.length)).toEqual([10, 10, 3]);
    expect(chunks.flat()).toEqual(events);
  });

  it('hold less than 256 KB of entries as EventBridge counts them', () => {
    const big = Array.from({ length: 5 }, (_, i) => detail(String(i), 100_000));
    const chunks = putEventsChunks(big);
    expect(chunks.map((c) => c.length)).toEqual([2, 2, 1]);
    for (const chunk of chunks) expect(chunk.reduce((sum, d) => sum + putEventsEntryBytes(d), 0)).toBeLessThan(PUT_EVENTS_MAX_BYTES);
  });

  it('put an entry too large for any request alone, so the bus refuses it by name', () => {
    const chunks = putEventsChunks([detail('a'), detail('huge', 300_000), detail('b')]);
    expect(chunks.map((c) => c.map((d) => d.key))).toEqual([['a'], ['huge'], ['b']]);
  });

  it('count an entry by its UTF-8 bytes, Time as 14', () => {
    const ascii = putEventsEntryBytes(detail('k'));
    expect(putEventsEntryBytes({ ...detail('k'), eventId: 'é' })).toBe(ascii + 1);
  });
});
