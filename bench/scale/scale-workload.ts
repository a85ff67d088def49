import type { Channel } from '../../functions/core/event/idempotency-key';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import type { Workload, WorkloadItem } from '../../local/workload';

/** One kind of message: a template, a class and the one channel each event sends on. */
export interface MessageKind {
  readonly templateId: 'order-shipped' | 'login-code' | 'weekly-offers';
  readonly messageClass: 'transactional' | 'otp' | 'marketing';
  readonly channel: Channel;
}

/** What a scale round injects. */
export interface ScaleWorkloadOptions {
  readonly kind: MessageKind;
  /** Distinct events, one message each. */
  readonly messages: number;
  /** Producer duplicates (a new SQS message of an event already sent), all queued after every original. @default 0 */
  readonly duplicates?: number;
  /** Distinguishes the runs' event ids and addresses. */
  readonly runTag: string;
  /** `occurredAt` of every event. @default now */
  readonly nowMs?: number;
}

/**
 * A backlog of single-message events of one kind, so each message takes one known ledger path: every address,
 * recipient and SMS number block is the event's own, so no limit refuses one (counted, never suppressed), and
 * duplicates come after every original, so each finds its message settled (a failed claim, not a race).
 * Not local/workload.ts, whose mixed order-platform traffic takes several paths at once.
 */
export function scaleWorkload(options: ScaleWorkloadOptions): Workload {
  const occurredAt = new Date(options.nowMs ?? Date.now()).toISOString();
  const events = Array.from({ length: options.messages }, (_, i) => eventOf(options.kind, options.runTag, i, occurredAt));
  const item = (event: NotificationEvent, duplicate: boolean): WorkloadItem => ({
    body: JSON.stringify(event),
    eventId: event.eventId,
    messageClass: event.messageClass,
    duplicate,
  });
  const duplicates = Math.min(options.duplicates ?? 0, events.length);
  return {
    events,
    items: [...events.map((e) => item(e, false)), ...events.slice(0, duplicates).map((e) => item(e, true))],
  };
}

function eventOf(kind: MessageKind, runTag: string, i: number, occurredAt: string): NotificationEvent {
  // A number block (all but the last 3 digits) of its own for each event: +1 415 then 7 digits, the last 3 fixed.
  const phone = `+1415${String(2_000_000 + i * 1000).padStart(7, '0')}`;
  const recipient = {
    recipientId: `scale-${runTag}-${i}`,
    email: `scale-${runTag}-${i}@example.com`,
    phone,
    pushEndpointArn: `arn:aws:sns:us-east-1:123456789012:endpoint/GCM/shop-app/${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`,
    channels: [kind.channel],
  };
  const base = { eventId: `evt-scale-${runTag}-${i}`, occurredAt, templateId: kind.templateId, messageClass: kind.messageClass, recipients: [recipient] };
  switch (kind.templateId) {
    case 'order-shipped':
      return { ...base, type: 'OrderShipped', data: { orderId: `${100_000 + i}`, carrier: 'DHL', trackingNumber: `TRK${100_000 + i}` } };
    case 'login-code':
      return { ...base, type: 'LoginCodeRequested', data: { code: String(100_000 + (i % 900_000)), expiresInMinutes: 10 } };
    case 'weekly-offers':
      return { ...base, type: 'WeeklyOffers', data: { headline: 'Up to 30% off garden tools', url: 'https://shop.example.com/offers' } };
  }
}
