import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import * as v from 'valibot';
import { CHANNELS, idempotencyKey, type Channel } from '../event/idempotency-key';
import type { NotificationEvent, Recipient } from '../event/notification-event';
import type { LedgerRow } from '../ledger/ledger-record';
import { describeProblems, validate } from '../schema';

/**
 * What a primary's row keeps so that its fallback can be sent without the event (the event is gone from the queue
 * by then): the rest of the chain, the addresses of those channels only, the template data, the recipient's time zone
 * and language tag. It is the row's `request` for the next message, kept past the primary's settling because the
 * provider's word (a bounce, a failed text) may come later; it goes with the row at its retention (TTL), as the row's
 * `consentKey` does. docs/design/fallback.md says why here and not elsewhere. Never read by the outcome publisher,
 * never logged.
 */
export interface FallbackPlan {
  /** The channels after the row's own, in order: the first is the row's fallback. */
  readonly rest: readonly Channel[];
  readonly type: string;
  readonly data: Readonly<Record<string, string | number | boolean | null>>;
  readonly email?: string;
  readonly phone?: string;
  readonly pushEndpointArn?: string;
  readonly timeZone?: string;
  /** The recipient's tag as the producer gave it (resolved again the same way: the fallback reads the same template). */
  readonly locale?: unknown;
}

const FallbackPlanSchema = v.object({
  rest: v.pipe(v.array(v.picklist(CHANNELS)), v.minLength(1)),
  type: v.string(),
  data: v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.null()])),
  email: v.optional(v.string()),
  phone: v.optional(v.string()),
  pushEndpointArn: v.optional(v.string()),
  timeZone: v.optional(v.string()),
  locale: v.optional(v.unknown()),
});

/** The plan of `recipient`'s message on the first channel of `chain`, or undefined when the chain has no next channel. */
export function fallbackPlanOf(event: NotificationEvent, recipient: Recipient, chain: readonly Channel[]): FallbackPlan | undefined {
  const rest = chain.slice(1);
  if (rest.length === 0) return undefined;
  return {
    rest,
    type: event.type,
    data: event.data,
    ...(rest.includes('email') && recipient.email !== undefined ? { email: recipient.email } : {}),
    ...(rest.includes('sms') && recipient.phone !== undefined ? { phone: recipient.phone } : {}),
    ...(rest.includes('push') && recipient.pushEndpointArn !== undefined ? { pushEndpointArn: recipient.pushEndpointArn } : {}),
    ...(recipient.timeZone !== undefined ? { timeZone: recipient.timeZone } : {}),
    ...(recipient.locale !== undefined ? { locale: recipient.locale } : {}),
  };
}

/** The key of the message a plan's row falls back to: the same event, recipient and template, the next channel. */
export function fallbackKeyOf(identity: Pick<LedgerRow, 'eventId' | 'recipientId' | 'templateId'>, plan: Pick<FallbackPlan, 'rest'>): string {
  return idempotencyKey({ eventId: identity.eventId, recipientId: identity.recipientId, channel: plan.rest[0]!, templateId: identity.templateId });
}

/**
 * The event the fallback is planned from: one recipient whose chain is the rest, so the fallback is planned, claimed,
 * gated and sent as any message is, and carries its own plan for the channel after it.
 */
export function fallbackEvent(row: Pick<LedgerRow, 'eventId' | 'recipientId' | 'templateId' | 'messageClass' | 'occurredAt'>, plan: FallbackPlan): NotificationEvent {
  const { rest, type, data, locale, ...addresses } = plan;
  return {
    eventId: row.eventId,
    occurredAt: row.occurredAt,
    type,
    templateId: row.templateId,
    messageClass: row.messageClass,
    data,
    recipients: [{ recipientId: row.recipientId, ...addresses, ...(locale !== undefined ? { locale } : {}), channels: [], fallback: [...rest] }],
  };
}

const PACKED_PLAN_FORMAT = 1;
const BROTLI_QUALITY = 5;
/** Well under a row's 400 KB with the row's request beside it: the event's data is at most the 64 KB body. */
const MAX_UNPACKED_BYTES = 1024 * 1024;

/** The plan packed as a row keeps it: a format byte, then brotli-compressed JSON (as stored-request.ts packs a message). */
export function packFallbackPlan(plan: FallbackPlan): Uint8Array {
  const packed = Buffer.concat([Buffer.of(PACKED_PLAN_FORMAT), brotliCompressSync(JSON.stringify(plan), { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } })]);
  return new Uint8Array(packed.buffer, packed.byteOffset, packed.length);
}

export type PlanUnpacking = { readonly ok: true; readonly plan: FallbackPlan } | { readonly ok: false; readonly reason: string };

/** The plan a row keeps; a damaged value is an answer with a reason (never an address or content). */
export function unpackFallbackPlan(stored: Uint8Array): PlanUnpacking {
  if (stored[0] !== PACKED_PLAN_FORMAT) return { ok: false, reason: `FallbackPlanUnreadable: unknown format ${String(stored[0])}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(brotliDecompressSync(stored.subarray(1), { maxOutputLength: MAX_UNPACKED_BYTES }).toString('utf8'));
  } catch {
    return { ok: false, reason: 'FallbackPlanUnreadable: not a packed plan' };
  }
  const checked = validate(FallbackPlanSchema, parsed);
  return checked.success ? { ok: true, plan: checked.output } : { ok: false, reason: `FallbackPlanUnreadable: ${describeProblems(checked.problems, 3)}` };
}
