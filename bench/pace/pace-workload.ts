import type { NotificationEvent } from '../../functions/core/event/notification-event';

/** The two channels the provider-pace burst mixes. */
export type PaceChannel = 'email' | 'sms';

/** A burst of queue messages, each one event with one message on one channel. */
export interface PaceWorkload {
  /** Queue message bodies in send order. */
  readonly bodies: readonly string[];
  /** Messages per channel (one per body). */
  readonly perChannel: Readonly<Record<PaceChannel, number>>;
}

/**
 * `messages` events with unique ids, alternating e-mail and SMS, one recipient and one message
 * each: every queue message is one provider send, and a batch of ten read in order holds five of
 * each, so neither channel's pace waits on the other's within an invocation. Not local/workload.ts:
 * its duplicates and fan-out to one to three channels would blur "messages ÷ quota".
 */
export function paceWorkload(messages: number, runId: string, nowMs: number): PaceWorkload {
  const bodies: string[] = [];
  const perChannel: Record<PaceChannel, number> = { email: 0, sms: 0 };
  const occurredAt = new Date(nowMs).toISOString();
  for (let i = 0; i < messages; i += 1) {
    const channel: PaceChannel = i % 2 === 0 ? 'email' : 'sms';
    perChannel[channel] += 1;
    const event: NotificationEvent = {
      eventId: `pace-${runId}-${i}`,
      occurredAt,
      type: 'OrderShipped',
      templateId: 'order-shipped',
      messageClass: 'transactional',
      data: { orderId: String(100_000 + i), carrier: 'DHL', trackingNumber: `JD${i}` },
      recipients: [
        channel === 'email'
          ? { recipientId: `buyer-${i}`, email: `buyer-${i}@example.com`, channels: ['email'] }
          : { recipientId: `buyer-${i}`, phone: `+4477009${String(i % 100_000).padStart(5, '0')}`, channels: ['sms'] },
      ],
    };
    bodies.push(JSON.stringify(event));
  }
  return { bodies, perChannel };
}
