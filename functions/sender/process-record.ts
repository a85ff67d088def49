import type { DeadLetterSink } from '../core/queue/dead-letter-sink';
import { InvalidEventError, RetryLaterError, type RecordBackoff } from '../core/errors';
import type { MessageClassRegistry } from '../core/policy/message-class';
import { METRIC } from '../core/observability/metric-names';
import { parseNotificationBody, type NotificationEvent, type ParsedEvent } from '../core/event/notification-event';
import type { TemplateRegistry } from '../core/templates/templates';
import { deliver, FRESH_CLAIM, type DeliveryContext, type MessageResult } from '../delivery/deliver-message';
import { planMessages, type MessagePlan } from '../delivery/message-plan';
import { claimMustBeDiscoverable, type ReceiveInfo, type RedeliveryPolicy } from '../core/ledger/stale-claim-discovery';

/** What processing one SQS record needs beyond a single delivery. */
export interface RecordContext extends DeliveryContext {
  readonly deadLetters: DeadLetterSink;
  readonly messageClasses: MessageClassRegistry;
  readonly templates: TemplateRegistry;
  readonly maxBodyBytes: number;
  readonly maxClockSkewMs: number;
  /**
   * Dead-letter an event with a field the schema does not know (reason `UnknownField`) instead of dropping the
   * field; either way each one is counted (`UnknownEventField` by name) and logged. @default false
   */
  readonly refuseUnknownEventFields?: boolean;
  /** Bounds concurrent deliveries across the whole batch. */
  readonly limit: <T>(task: () => Promise<T>) => Promise<T>;
  /**
   * Whether a delivery started now can still record its outcome before the function times out.
   * A delivery that would not is left for redelivery instead of leaving a claim that looks dead.
   * @default always true
   */
  readonly hasTimeForDelivery?: () => boolean;
  /** How the source queue redelivers. @default unknown: every claim is discoverable */
  readonly redelivery?: RedeliveryPolicy;
  /**
   * On a redelivered record (receive count > 1), read each message's row before claiming it:
   * measured in `npm run bench` (request probe). @default true
   */
  readonly readBeforeClaimOnRedelivery?: boolean;
}

/** The parts of an SQS record the sender reads. */
export interface QueueRecord {
  readonly messageId: string;
  readonly body: string;
  /** Which receive of the message this is. @default unknown: claims are made discoverable */
  readonly receive?: ReceiveInfo;
}

export interface RecordResult {
  readonly kind: 'settled' | 'dead-lettered';
  readonly messages: readonly MessageResult[];
}

/**
 * Processes one SQS record: parse, fan out to messages, deliver each. Resolves when the
 * record may be acknowledged (every message terminal, or the record dead-lettered with
 * its reason); throws RetryLaterError otherwise, which reports it as a batch item failure.
 */
export async function processRecord(record: QueueRecord, ctx: RecordContext): Promise<RecordResult> {
  let event: NotificationEvent;
  try {
    const parsed = parseNotificationBody(record.body, ctx.maxBodyBytes);
    event = parsed.event;
    noteUnknownFields(parsed, ctx);
    checkEventWindow(event, ctx);
  } catch (error) {
    if (!(error instanceof InvalidEventError)) throw error;
    await deadLetter(record, error, ctx);
    return { kind: 'dead-lettered', messages: [] };
  }
  const messageClass = ctx.messageClasses.get(event.messageClass);
  if (!messageClass) {
    const known = [...ctx.messageClasses.keys()].join(', ');
    await deadLetter(record, new InvalidEventError('UnknownMessageClass', `"${event.messageClass}" (known: ${known})`), ctx, event);
    return { kind: 'dead-lettered', messages: [] };
  }

  const plans = planMessages(event, messageClass, ctx.templates);
  countLocaleFallbacks(plans, ctx);
  const delivery: DeliveryContext = {
    ...ctx,
    claimsDiscoverable: claimMustBeDiscoverable(record.receive, ctx.redelivery, ctx.clock()),
    readBeforeClaim: (ctx.readBeforeClaimOnRedelivery ?? true) && (record.receive?.receiveCount ?? 1) > 1,
  };
  const messages = await Promise.all(
    plans.map((plan) =>
      ctx.limit(
        async (): Promise<MessageResult> =>
          ctx.hasTimeForDelivery && !ctx.hasTimeForDelivery()
            ? { settled: false, why: 'out-of-time' }
            : deliver(plan, FRESH_CLAIM, delivery),
      ),
    ),
  );
  const unsettled = messages.filter((m): m is Extract<MessageResult, { settled: false }> => !m.settled);
  const refused = unsettled.find((m) => m.why === 'ledger-refused');
  if (refused) {
    // Every receive would fail the same way: dead-lettered now with why, the record's other messages with it (a
    // redrive after the fix skips those already settled, by their keys).
    await deadLetter(record, new InvalidEventError('LedgerRefusedClaim', `${refused.detail}; ${unsettled.length} of ${messages.length} messages not settled`), ctx, event);
    return { kind: 'dead-lettered', messages };
  }
  if (unsettled.length > 0) {
    const reasons = [...new Set(unsettled.map((m) => (m.why === 'transient-failure' ? `${m.why}:${m.cause}` : m.why)))].join(', ');
    throw new RetryLaterError(
      `${unsettled.length} of ${messages.length} messages of event ${event.eventId} not settled (${reasons})`,
      backoffFor(unsettled),
    );
  }
  return { kind: 'settled', messages };
}

/**
 * Each message going out in its template's default locale because its recipient's tag led to no variant: counted
 * by reason and, unless no tag was given, logged with ids (never the tag as given: it may be anything). Counted again on a redelivery, as
 * each receive renders the message again.
 */
function countLocaleFallbacks(plans: readonly MessagePlan[], ctx: RecordContext): void {
  for (const plan of plans) {
    const reason = plan.locale?.fallback;
    if (reason === undefined) continue;
    ctx.metrics.count(METRIC.LocaleFallback, { channel: plan.identity.channel, messageClass: plan.messageClass.name, reason });
    // A missing tag is the common case of a producer that sends none: counted, not logged.
    if (reason === 'missing') continue;
    ctx.log.info('Message written in its template\'s default locale', {
      eventId: plan.identity.eventId,
      recipientId: plan.identity.recipientId,
      channel: plan.identity.channel,
      templateId: plan.identity.templateId,
      locale: plan.locale!.locale,
      reason,
    });
  }
}

/**
 * Counts and logs the fields of an event the schema does not know (a misspelt name, a field the schema will
 * learn later), by name; refuses the event when the stack says so. Off by default: a producer that sends a new
 * field early keeps working.
 */
function noteUnknownFields(parsed: ParsedEvent, ctx: RecordContext): void {
  if (parsed.unknownFields.length === 0) return;
  for (const field of parsed.unknownFields) ctx.metrics.count(METRIC.UnknownEventField, { field });
  const refused = ctx.refuseUnknownEventFields === true;
  ctx.log.warn(refused ? 'Event refused: fields the schema does not know' : 'Event has fields the schema does not know; they are ignored', {
    eventId: parsed.event.eventId,
    fields: parsed.unknownFields,
  });
  if (refused) throw new InvalidEventError('UnknownField', `fields the schema does not know: ${parsed.unknownFields.join(', ')}`);
}

/**
 * An event older than the ledger's retention may have had its row expire already, so a
 * redelivery (a DLQ redrive resets SQS retention) could no longer be deduplicated.
 */
function checkEventWindow(event: NotificationEvent, ctx: RecordContext): void {
  const occurredAt = Date.parse(event.occurredAt);
  const now = ctx.clock();
  if (occurredAt > now + ctx.maxClockSkewMs) {
    throw new InvalidEventError(
      'OccurredInFuture',
      `occurredAt ${event.occurredAt} is more than ${ctx.maxClockSkewMs / 1000}s ahead of now`,
    );
  }
  if (occurredAt + ctx.timing.retentionMs - ctx.maxClockSkewMs <= now) {
    throw new InvalidEventError(
      'EventTooOld',
      `occurredAt ${event.occurredAt} is older than the ledger retention of ${ctx.timing.retentionMs / 86_400_000} days; ` +
        'it cannot be deduplicated safely and is not sent blind',
    );
  }
}

async function deadLetter(
  record: QueueRecord,
  error: InvalidEventError,
  ctx: RecordContext,
  event?: NotificationEvent,
): Promise<void> {
  ctx.metrics.count(error.reason === 'EventTooOld' ? METRIC.EventTooOld : METRIC.InvalidEvent);
  ctx.log.warn('Invalid event moved to the dead-letter queue', {
    reason: error.reason,
    detail: error.detail,
    sqsMessageId: record.messageId,
    ...(event ? { eventId: event.eventId } : {}),
  });
  await ctx.deadLetters.deadLetter({
    body: record.body,
    reason: error.reason,
    detail: error.detail,
    sourceMessageId: record.messageId,
  });
  ctx.metrics.count(METRIC.DeadLettered);
}

/** Reasons a message waits that are waited out by backing the record off rather than by the queue's visibility timeout. */
const PACED: ReadonlySet<string> = new Set([
  'rate-limited',
  'transient-failure',
  // A failed store is waited out like a provider's pace: the message was neither sent nor suppressed.
  'limit-store-unavailable',
  'consent-store-unavailable',
  'quiet-hours',
]);

/**
 * A record backs off only when every message it still owes waits on the providers' pace or on quiet
 * hours; any other reason (another worker's claim, a ledger error) keeps the queue's visibility timeout.
 * A record whose messages all wait for quiet hours to end comes back at the earliest end (each message
 * held longer is deferred again then); one that also waits on a provider backs off as for the provider,
 * and its quiet message is simply deferred again at the next receive.
 */
function backoffFor(unsettled: readonly Extract<MessageResult, { settled: false }>[]): RecordBackoff | undefined {
  if (!unsettled.every((m) => PACED.has(m.why))) return undefined;
  const quietEnds = unsettled.flatMap((m) => (m.why === 'quiet-hours' ? [m.untilMs] : []));
  if (quietEnds.length === unsettled.length) return { until: Math.min(...quietEnds) };
  return unsettled.some((m) => m.why === 'transient-failure' && m.cause === 'quota-exhausted') ? 'pause' : 'throttle';
}
