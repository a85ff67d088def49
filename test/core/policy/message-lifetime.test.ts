import { describe, expect, it } from 'vitest';
import { lifetimeLeft } from '../../../functions/core/policy/message-lifetime';
import type { RenderedMessage } from '../../../functions/core/templates/rendered-message';
import { settleBoundMs, isPastSettleBound } from '../../../functions/core/ledger/settle-bound';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const push = (validForSeconds?: number): RenderedMessage => ({ channel: 'push', to: 'arn', title: 't', text: 'b', ...(validForSeconds === undefined ? {} : { validForSeconds }) });
const sms: RenderedMessage = { channel: 'sms', to: '+14155550101', text: 'code' };
const email: RenderedMessage = { channel: 'email', to: 'a@example.com', subject: 's', text: 't' };
const otp = { push: { lifetimeSeconds: 600, priority: 'high' as const }, smsTimeToLiveSeconds: 600 };
const ask = (message: RenderedMessage, ageMs: number, smsTimeToLive = true) => lifetimeLeft({ message, messageClass: otp, occurredAtMs: NOW - ageMs, nowMs: NOW, smsTimeToLive });

describe('a message lifetime counts from its event', () => {
  it("a push lives its code's validity, else its class lifetime, less the event's age", () => {
    expect(ask(push(180), 30_000)).toEqual({ kind: 'left', seconds: 150 });
    expect(ask(push(), 240_000)).toEqual({ kind: 'left', seconds: 360 });
    expect(ask(push(), 599_000)).toEqual({ kind: 'left', seconds: 1 });
    expect(ask(push(), 599_001)).toEqual({ kind: 'expired', lifetimeSeconds: 600, ageSeconds: 599 });
    expect(ask(push(), 7_200_000)).toEqual({ kind: 'expired', lifetimeSeconds: 600, ageSeconds: 7_200 });
  });

  it('a lifetime of 0 is "now or never", which no age shortens; an event ahead of the clock has aged nothing', () => {
    expect(ask(push(0), 7_200_000)).toEqual({ kind: 'left', seconds: 0 });
    expect(ask(push(), -60_000)).toEqual({ kind: 'left', seconds: 600 });
  });

  it("a text has one only where its provider keeps a time to live, and needs End User Messaging's 5 s minimum", () => {
    expect(ask(sms, 595_000)).toEqual({ kind: 'left', seconds: 5 });
    expect(ask(sms, 595_001)).toMatchObject({ kind: 'expired' });
    expect(ask(sms, 7_200_000, false)).toEqual({ kind: 'none' });
    expect(ask(email, 7_200_000)).toEqual({ kind: 'none' });
  });
});

describe('the settle bound of a class', () => {
  const timing = { retentionMs: 30 * 86_400_000 };
  it("is the class's own, never past half the retention, which is also the default", () => {
    expect(settleBoundMs({ settleWithinSeconds: 1_800 }, timing)).toBe(1_800_000);
    expect(settleBoundMs({}, timing)).toBe(15 * 86_400_000);
    expect(settleBoundMs({ settleWithinSeconds: 40 * 86_400 }, timing)).toBe(15 * 86_400_000);
  });

  it('is reached at the first claim plus the bound, not a millisecond before', () => {
    expect(isPastSettleBound(0, { settleWithinSeconds: 1_800 }, timing, 1_799_999)).toBe(false);
    expect(isPastSettleBound(0, { settleWithinSeconds: 1_800 }, timing, 1_800_000)).toBe(true);
  });
});
