import { describe, expect, it } from 'vitest';
import { OUTCOME_STATES } from '../../../functions/core/outcome/outcome-state';
import type { OutcomeEventDetail } from '../../../functions/core/outcome/outcome-event';
import { OUTCOME_EVENT_SCHEMA, schemaProblems } from '../../support/outcome-event-schema';

const full: Required<OutcomeEventDetail> = {
  version: 1,
  outcomeId: 'a'.repeat(32),
  sequence: '1'.repeat(33),
  key: 'b'.repeat(64),
  eventId: 'evt-1',
  recipientId: 'buyer-17',
  channel: 'sms',
  templateId: 'login-code',
  messageClass: 'otp',
  lane: 'urgent',
  state: 'DELIVERED',
  delivery: 'delivered',
  reason: 'SUCCESS',
  providerMessageId: 'sns-1',
  claimVersion: 2,
  occurredAt: '2026-11-29T11:59:00Z',
  stateAt: '2026-11-29T12:00:00.000Z',
  replaces: 'c'.repeat(64),
};
const optional = ['lane', 'delivery', 'reason', 'providerMessageId', 'replaces'];

describe('the committed schema of an outcome event (schemas/outcome-event.json)', () => {
  it('names every field of the detail, and requires all but the optional ones', () => {
    const properties = OUTCOME_EVENT_SCHEMA as unknown as { properties: Record<string, { enum?: string[] }>; required: string[] };
    expect(Object.keys(properties.properties).sort()).toEqual(Object.keys(full).sort());
    expect([...properties.required].sort()).toEqual(Object.keys(full).filter((k) => !optional.includes(k)).sort());
    expect(properties.properties['state']?.enum).toEqual([...OUTCOME_STATES]);
    expect(properties.properties['delivery']?.enum).toEqual(['certainly-undelivered', 'possibly-delivered', 'delivered']);
  });

  it('accepts a full detail and one without the optional fields', () => {
    expect(schemaProblems(OUTCOME_EVENT_SCHEMA, full)).toEqual([]);
    const { lane: _l, delivery: _d, reason: _r, providerMessageId: _p, replaces: _f, ...minimal } = full;
    expect(schemaProblems(OUTCOME_EVENT_SCHEMA, minimal)).toEqual([]);
  });

  it.each([
    ['a field it does not name', { ...full, email: 'x@example.com' }, 'detail.email: not in the schema'],
    ['a state it does not name', { ...full, state: 'PENDING' }, 'detail.state: must be one of'],
    ['a missing key', { ...full, key: undefined }, 'detail.key'],
    ['a short outcome id', { ...full, outcomeId: 'abc' }, 'detail.outcomeId: must match'],
    ['a claim version of 0', { ...full, claimVersion: 0 }, 'detail.claimVersion: below 1'],
  ])('refuses %s', (_name, detail, problem) => {
    expect(schemaProblems(OUTCOME_EVENT_SCHEMA, JSON.parse(JSON.stringify(detail))).join('; ')).toContain(problem);
  });
});
