import fc from 'fast-check';
import { expect, it } from 'vitest';
import { CHANNELS } from '../../../functions/core/event/idempotency-key';
import { newClaimRow } from '../../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../../functions/core/ledger/ledger-record';
import { packRequest } from '../../../functions/core/ledger/stored-request';
import { SUPPRESSION_REASONS } from '../../../functions/core/policy/suppression';
import { outcomeEventDetail } from '../../../functions/core/outcome/outcome-event';
import { outcomeChange } from '../../../functions/core/outcome/outcome-state';
import { expectOutcomeEventSchema } from '../../support/outcome-event-schema';

/**
 * The naughty-input property of the outcome feed: whatever a producer put in an event (hostile strings of the
 * whole UTF-16 range in every identifier, an address, a number, a push endpoint, a body, template data), and
 * whatever a provider's error quoted, no outcome event carries an address, a number, an endpoint ARN, a body
 * or template data. The row's `request` (the rendered message) and `consentKey` are there on every row; a
 * provider reason quotes the addresses too.
 */
const hostileUnit = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)) },
  { weight: 2, arbitrary: fc.constantFrom(...'\u0000\u0007\t\n\r\u001b\u007f\u0085\u009f\u2028\ufeff\ufffe"\\') },
);
const hostile = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: hostileUnit, maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: hostileUnit, minLength: 200, maxLength: 2_000 }) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', '', ' ', 'a\nb', 'x\u0000y', '😀', '\ud83d', '<script>', "' OR 1=1 --") },
);
/** A secret: a hostile string made unique by a marker no generated identifier can hold. */
const secret = (kind: string) => fc.tuple(fc.uuid(), hostile).map(([id, text]) => `${kind}\u2063${id}\u2063${text}`);

const world = fc.record({
  eventId: hostile,
  recipientId: hostile,
  templateId: hostile,
  messageClass: hostile,
  channel: fc.constantFrom(...CHANNELS),
  email: fc.emailAddress(),
  phone: fc.stringMatching(/^\+[1-9]\d{9,13}$/),
  endpointId: fc.uuid(),
  subject: secret('SUBJECT'),
  body: secret('BODY'),
  html: secret('HTML'),
  dataValue: secret('DATA'),
  consentKey: secret('CONSENT'),
  state: fc.constantFrom('SENT', 'FAILED', 'UNKNOWN', 'SUPPRESSED') as fc.Arbitrary<LedgerRow['state']>,
  deliveryStatus: fc.option(fc.constantFrom('Delivery', 'Bounce', 'Complaint', 'FAILURE', 'TEXT_DELIVERED', 'Send', 'Open', 'Reject', 'TEXT_UNKNOWN', 'TEXT_SUCCESSFUL'), { nil: undefined }),
  suppressionReason: fc.constantFrom(...SUPPRESSION_REASONS),
  packed: fc.boolean(),
});

it('no outcome event carries an address, a number, an endpoint, a body or template data', () => {
  fc.assert(
    fc.property(world, (w) => {
      const endpoint = `arn:aws:sns:eu-west-1:123456789012:endpoint/GCM/shop-app/${w.endpointId}`;
      const to = w.channel === 'email' ? w.email : w.channel === 'sms' ? w.phone : endpoint;
      const message = { channel: 'email' as const, to, subject: w.subject, text: `${w.body} ${w.dataValue}`, html: w.html };
      const packing = packRequest(message);
      const t0 = Date.parse('2026-11-29T12:00:00Z');
      const claim = newClaimRow({
        subject: { key: 'f'.repeat(64), eventId: w.eventId, recipientId: w.recipientId, channel: w.channel, templateId: w.templateId, messageClass: w.messageClass, occurredAt: '2026-11-29T11:59:00Z' },
        ownerToken: 'owner',
        nowMs: t0,
        timing: { claimTimeoutMs: 120_000, retentionMs: 86_400_000 },
      });
      const pending: LedgerRow = { ...claim, request: w.packed && packing.ok ? packing.packed : message, consentKey: w.consentKey };
      const settled: LedgerRow = {
        ...pending,
        state: w.state,
        resolvedAt: t0 + 1,
        updatedAt: t0 + 1,
        failureReason: `MessageRejected: ${w.email} ${w.phone} ${endpoint} said no`,
        ...(w.state === 'SUPPRESSED' ? { suppressionReason: w.suppressionReason } : {}),
        ...(w.deliveryStatus ? { deliveryStatus: w.deliveryStatus, deliveryStatusAt: t0 + 5, deliveryStatusRank: 3, deliveryStatusDetail: 'Permanent/General' } : {}),
      };
      const outcome = outcomeChange(pending, settled);
      expect(outcome).toBeDefined();
      const detail = outcomeEventDetail(settled, outcome!, { laneOf: () => 'bulk' });
      expectOutcomeEventSchema([detail]);
      const json = JSON.stringify(detail);
      for (const leaked of [w.email, w.phone, endpoint, w.endpointId, w.subject, w.body, w.html, w.dataValue, w.consentKey]) {
        expect(json).not.toContain(JSON.stringify(leaked).slice(1, -1));
      }
      for (const marker of ['SUBJECT\u2063', 'BODY\u2063', 'HTML\u2063', 'DATA\u2063', 'CONSENT\u2063']) {
        expect(json).not.toContain(JSON.stringify(marker).slice(1, -1));
      }
    }),
    { numRuns: 300 },
  );
});
