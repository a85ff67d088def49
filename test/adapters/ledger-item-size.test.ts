import { describe, expect, it } from 'vitest';
import { rowToItem } from '../../functions/adapters/dynamodb-ledger';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import { consentKeyOf } from '../../functions/core/policy/consent';
import { CHANNELS, type Channel } from '../../functions/core/event/idempotency-key';
import { newClaimRow } from '../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { packRequest } from '../../functions/core/ledger/stored-request';
import type { TemplateRegistry } from '../../functions/core/templates/templates';
import { planMessages, type MessagePlan } from '../../functions/delivery/message-plan';
import { orderConfirmation } from '../../bench/fixtures/order-confirmation';
import { itemBytes } from '../../local/item-bytes';

const TIMING = { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 };
const templates = repositoryTemplates();
const classes = buildMessageClassRegistry();
const transactional = classes.get('transactional')!;
/** A bulk template is sent by a bulk class (marketing), whose rows also carry a consent key. */
const classOf = (templateId: string) => (templates.get(templateId)?.bulk ? classes.get('marketing')! : transactional);
const OWNER = '6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b';

/** Long but ordinary identity and addresses: 64-character ids, a 64-character e-mail address, a full E.164 number, an SNS endpoint ARN. */
const RECIPIENT = {
  recipientId: 'r'.repeat(64),
  email: `${'e'.repeat(51)}@example.com`,
  phone: '+447700900123456',
  pushEndpointArn: 'arn:aws:sns:eu-west-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab',
};

/** Bytes of a row's item by DynamoDB's rules. */
function rowBytes(row: LedgerRow): number {
  return itemBytes(rowToItem(row));
}

/** The first plan of `event`, which must render. */
function planOf(event: NotificationEvent, registry: TemplateRegistry = templates): MessagePlan & { prepared: { ok: true } } {
  const [plan] = planMessages(event, classOf(event.templateId), registry);
  if (!plan?.prepared.ok) throw new Error(`${event.templateId} did not render: ${plan?.prepared.ok === false ? plan.prepared.reason : 'no plan'}`);
  return plan as MessagePlan & { prepared: { ok: true } };
}

/** The claim row of `plan`: discoverable ones keep the message packed, as the sender writes them. */
function claimRow(plan: MessagePlan & { prepared: { ok: true } }, discoverable: boolean): LedgerRow {
  const packing = packRequest(plan.prepared.request.message);
  if (!packing.ok) throw new Error(packing.reason);
  const messageClass = classOf(plan.identity.templateId);
  const consentKey = messageClass.bulk ? consentKeyOf(plan.prepared.request.message) : undefined;
  return newClaimRow({
    subject: { key: plan.key, ...plan.identity, messageClass: messageClass.name, occurredAt: plan.occurredAt, ...(consentKey ? { consentKey } : {}) },
    ownerToken: OWNER,
    nowMs: Date.parse(plan.occurredAt),
    timing: TIMING,
    discoverable,
    request: packing.packed,
  });
}

/** The event of `templateId` by `channel`, each field filled to `fill(maxLength)`. */
function shippedTemplateEvent(templateId: string, channel: Channel, fill: (maxLength: number) => string): NotificationEvent {
  const template = templates.get(templateId)!;
  return {
    eventId: 'e'.repeat(64),
    occurredAt: '2026-11-30T12:00:00.000Z',
    type: 'SizeProbe',
    templateId,
    messageClass: classOf(templateId).name,
    data: Object.fromEntries(Object.entries(template.fields).map(([name, field]) => [name, fill(field.maxLength)])),
    recipients: [{ ...RECIPIENT, channels: [channel] }],
  };
}

const variants = [...templates.values()].flatMap((t) => CHANNELS.filter((c) => t[c] !== undefined).map((channel) => ({ id: t.id, channel })));

describe('claim item size: a first delivery writes identifiers only, one write unit (1 KB)', () => {
  it.each(variants)('$id by $channel, every field at its maxLength', ({ id, channel }) => {
    expect(rowBytes(claimRow(planOf(shippedTemplateEvent(id, channel, (max) => 'x'.repeat(max))), false))).toBeLessThanOrEqual(1024);
  });

  it('does not grow with the rendered content: a 90 KB order confirmation claims in the bytes of a login-code e-mail', () => {
    const large = orderConfirmation('large');
    const order = claimRow(planOf(large.event({ eventId: 'e'.repeat(64), recipientId: 'r'.repeat(64), occurredAt: '2026-11-30T12:00:00.000Z' }), large.templates), false);
    const code = claimRow(planOf(shippedTemplateEvent('login-code', 'email', () => 'x')), false);
    expect(order.request).toBeUndefined();
    // Only the template id differs in length ('order-confirmation' against 'login-code').
    expect(rowBytes(order)).toBe(rowBytes(code) + 'order-confirmation'.length - 'login-code'.length);
    expect(rowBytes(order)).toBeLessThanOrEqual(1024);
  });

  it('is bounded by the event schema: ids at their maxima (event and recipient 256, template 128, class 64 characters) stay under 2 KB', () => {
    const row = claimRow(planOf(shippedTemplateEvent('login-code', 'sms', () => 'x')), false);
    const longest = { ...row, eventId: 'e'.repeat(256), recipientId: 'r'.repeat(256), templateId: 't'.repeat(128), messageClass: 'c'.repeat(64) };
    expect(rowBytes(longest)).toBeGreaterThan(1024);
    expect(rowBytes(longest)).toBeLessThanOrEqual(2048);
  });
});

describe('claim item size where the reclaimer may need the message (in the pending index): packed', () => {
  // What docs/scale.md's delivered-last-receive column assumes (ledgerUnits' discoverableClaimBytes default).
  it.each(variants)('$id by $channel, every field at its maxLength: a discoverable claim of at most 1 KB', ({ id, channel }) => {
    // Letters and digits in no repeating run, so the packed message does not shrink as a run of one letter would.
    const scattered = (max: number) => Array.from({ length: max }, (_, i) => 'abcdefghijklmnopqrstuvwxyz0123456789'[(i * 7919) % 36]).join('');
    const row = claimRow(planOf(shippedTemplateEvent(id, channel, scattered)), true);
    expect(row.request).toBeInstanceOf(Uint8Array);
    expect(rowBytes(row)).toBeLessThanOrEqual(1024);
  });

  it.each([
    ['small', 2],
    ['standard', 5],
    ['large', 8],
  ] as const)('an order confirmation (%s) claims in at most %d KB', (size, kb) => {
    const fixture = orderConfirmation(size);
    const plan = planOf(fixture.event({ eventId: 'e'.repeat(64), recipientId: 'r'.repeat(64), email: RECIPIENT.email }), fixture.templates);
    const row = claimRow(plan, true);
    expect(row.request).toBeInstanceOf(Uint8Array);
    expect(row.pendingShard).toBeDefined();
    const plainBytes = rowBytes({ ...row, request: plan.prepared.request.message });
    expect(rowBytes(row)).toBeLessThanOrEqual(kb * 1024);
    // At most a quarter of the plain message's item wherever the message is more than a few KB.
    if (size !== 'small') expect(rowBytes(row)).toBeLessThanOrEqual(plainBytes / 4);
  });
});
