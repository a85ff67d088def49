import { InvalidEventError } from '../core/errors';
import { METRIC } from '../core/observability/metric-names';
import { parseNotificationBody, type NotificationEvent, type ParsedEvent } from '../core/event/notification-event';
import { planMessages, type MessagePlan } from '../delivery/message-plan';
import { parseFallbackRequest } from '../core/fallback/fallback-request';
import { deadLetter } from './dead-letter-record';
import { deliverPlans } from './deliver-plans';
import { processFallbackRequest } from './process-fallback-request';
import type { QueueRecord, RecordContext, RecordResult } from './record-context';

export type { QueueRecord, RecordContext, RecordResult } from './record-context';

/**
 * Processes one SQS record: parse, fan out to messages, deliver each (or a fallback's request: process-fallback-request.ts). Resolves when the
 * record may be acknowledged (every message terminal, or the record dead-lettered with
 * its reason); throws RetryLaterError otherwise, which reports it as a batch item failure.
 */
export async function processRecord(record: QueueRecord, ctx: RecordContext): Promise<RecordResult> {
  // A fallback's request (fallback-request.ts) comes on the same queue as events: its class's lane.
  const fallbackRequest = parseFallbackRequest(record.body);
  if (fallbackRequest !== undefined) return processFallbackRequest(record, fallbackRequest, ctx);
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
  return deliverPlans(plans, record, ctx, `event ${event.eventId}`);
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
