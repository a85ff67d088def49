import type { InvalidEventError } from '../core/errors';
import { METRIC } from '../core/observability/metric-names';
import type { NotificationEvent } from '../core/event/notification-event';
import type { QueueRecord, RecordContext } from './record-context';

/** Moves a record to the dead-letter queue with its reason, counted and logged (ids only). */
export async function deadLetter(
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
