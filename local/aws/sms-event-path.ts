import type { LocalSqs } from './local-sqs';
import { startEventTopicQueue, type EventTopicQueue } from './event-topic-queue';

export type { StatusConsumer } from './event-topic-queue';

/** End User Messaging's events on the stack's own path: the configuration set's SNS topic, its status queue (raw delivery) and DLQ. */
export type SmsEventPath = EventTopicQueue;

export function startSmsEventPath(sqs: LocalSqs, name = 'notifier-sms-events'): Promise<SmsEventPath> {
  return startEventTopicQueue(sqs, name);
}
