import { describe, expect, it } from 'vitest';
import { newClaimRow } from '../../functions/core/ledger/ledger-decision';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';
import { planFromRow } from '../../functions/reclaimer/plan-from-row';
import { TIMING } from './reclaimer-harness';

const CLASSES = buildMessageClassRegistry();
const SMS = { channel: 'sms' as const, to: '+14155550101', text: 'Your code is 482913' };
const row = (patch: { messageClass?: string; request?: typeof SMS | { channel: 'email'; to: string; subject: string; text: string } | undefined } = {}) =>
  newClaimRow({ subject: {
      key: 'k'.repeat(64),
      eventId: 'evt-1',
      recipientId: 'user-9',
      channel: 'sms',
      templateId: 'login-code',
      messageClass: patch.messageClass ?? 'otp',
      occurredAt: '2026-11-29T11:59:30.000Z',
    }, ownerToken: 'owner-1', nowMs: Date.parse('2026-11-29T12:00:00.000Z'), timing: TIMING, request: 'request' in patch ? patch.request : SMS });

describe('a PENDING row’s plan, rebuilt from the row alone', () => {
  it('sends the stored request under the row’s class', () => {
    const { plan, classKnown } = planFromRow(row(), CLASSES);
    expect(classKnown).toBe(true);
    expect(plan.prepared).toEqual({
      ok: true,
      request: { key: 'k'.repeat(64), message: SMS, messageClass: 'otp', smsType: 'Transactional', push: CLASSES.get('otp')!.push, templateId: 'login-code', bulk: false },
    });
  });

  it('a class no longer configured is known to be unknown, and stands in as give-up', () => {
    const { plan, classKnown } = planFromRow(row({ messageClass: 'retired' }), CLASSES);
    expect(classKnown).toBe(false);
    expect(plan.messageClass).toMatchObject({ name: 'retired', onAmbiguous: 'give-up', lookupFallback: 'give-up', push: DEFAULT_PUSH_POLICY });
  });

  it.each([
    ['no stored request', undefined],
    ['a stored request for another channel', { channel: 'email' as const, to: 'buyer@example.com', subject: 's', text: 't' }],
  ])('%s cannot be sent from the ledger, and says why', (_what, request) => {
    expect(planFromRow(row({ request }), CLASSES).plan.prepared).toEqual({
      ok: false,
      reason:
        'RequestNotStored: the ledger row holds no rendered request (the message could not be addressed or rendered ' +
        'when it was claimed, was too large to keep, or was claimed where the queue still held it); it cannot be sent from the ledger',
    });
  });
});
