import { createRequire } from 'node:module';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { rowToItem } from '../../functions/adapters/dynamodb-ledger';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import { consentKeyOf } from '../../functions/core/consent';
import { CHANNELS, type Channel } from '../../functions/core/idempotency-key';
import { newClaimRow } from '../../functions/core/ledger-decision';
import { buildMessageClassRegistry } from '../../functions/core/message-class';
import type { NotificationEvent } from '../../functions/core/notification-event';
import { planMessages } from '../../functions/delivery/message-plan';

// dynalite's implementation of DynamoDB's item-size rules. It counts a string's characters where DynamoDB counts
// its UTF-8 bytes: the same here, where every value is ASCII.
const { itemSize } = createRequire(import.meta.url)('dynalite/db/index.js') as { itemSize(item: Record<string, unknown>): number };

const TIMING = { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 };
const templates = repositoryTemplates();
const classes = buildMessageClassRegistry();
const transactional = classes.get('transactional')!;
/** A bulk template is sent by a bulk class (marketing), whose rows also carry a consent key. */
const classOf = (templateId: string) => (templates.get(templateId)?.bulk ? classes.get('marketing')! : transactional);

/** Long but ordinary identity and addresses: 64-character ids, a 64-character e-mail address, a full E.164 number, an SNS endpoint ARN. */
const RECIPIENT = {
  recipientId: 'r'.repeat(64),
  email: `${'e'.repeat(51)}@example.com`,
  phone: '+447700900123456',
  pushEndpointArn: 'arn:aws:sns:eu-west-1:123456789012:endpoint/GCM/shop-app/0f1e2d3c-aaaa-bbbb-cccc-1234567890ab',
};

/** Bytes of the claim item one message of `templateId` writes, each field filled to `fill(maxLength)`. */
function claimItemBytes(templateId: string, channel: Channel, fill: (maxLength: number) => string): number {
  const template = templates.get(templateId)!;
  const event: NotificationEvent = {
    eventId: 'e'.repeat(64),
    occurredAt: '2026-11-30T12:00:00.000Z',
    type: 'SizeProbe',
    templateId,
    messageClass: classOf(templateId).name,
    data: Object.fromEntries(Object.entries(template.fields).map(([name, field]) => [name, fill(field.maxLength)])),
    recipients: [{ ...RECIPIENT, channels: [channel] }],
  };
  const messageClass = classOf(templateId);
  const [plan] = planMessages(event, messageClass, templates);
  if (!plan?.prepared.ok) throw new Error(`${templateId}/${channel} did not render: ${plan?.prepared.ok === false ? plan.prepared.reason : 'no plan'}`);
  const consentKey = messageClass.bulk ? consentKeyOf(plan.prepared.request.message) : undefined;
  const row = newClaimRow({ subject: { key: plan.key, ...plan.identity, messageClass: messageClass.name, occurredAt: event.occurredAt, request: plan.prepared.request.message, ...(consentKey ? { consentKey } : {}) }, ownerToken: '6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b', nowMs: Date.parse(event.occurredAt), timing: TIMING, discoverable: true });
  return itemSize(marshall(rowToItem(row), { removeUndefinedValues: true }));
}

const variants = [...templates.values()].flatMap((t) => CHANNELS.filter((c) => t[c] !== undefined).map((channel) => ({ id: t.id, channel })));

describe('claim item size: one write unit (1 KB) per claim for the built-in templates', () => {
  it.each(variants)('$id by $channel, with typical data (fields at a quarter of maxLength, at most 100 characters)', ({ id, channel }) => {
    expect(claimItemBytes(id, channel, (max) => 'x'.repeat(Math.min(100, Math.ceil(max / 4))))).toBeLessThanOrEqual(1024);
  });

  it('grows byte for byte with the rendered content: a field one character longer adds its bytes once per use', () => {
    const short = claimItemBytes('login-code', 'sms', () => 'x');
    const longer = claimItemBytes('login-code', 'sms', () => 'xx');
    // login-code's SMS text uses each of its two fields once.
    expect(longer - short).toBe(Object.keys(templates.get('login-code')!.fields).length);
  });
});
