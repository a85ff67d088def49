import { sqsOnDemand } from '../adapters/sqs-on-demand';
import type { DeadLetterSink } from '../core/queue/dead-letter-sink';
import type { RecordDeferral } from '../core/queue/record-deferral';
import type { SenderConfig } from '../core/sender-config';

// The sender's two SQS sinks, from validated configuration: only the sender has them, so the reclaimer's
// and the status function's assets carry no SQS chunk.

/** Moves invalid records to the dead-letter queue; SQS loads when the first one does (see sqs-on-demand.ts). */
export function createDeadLetters(config: Pick<SenderConfig, 'deadLetterQueueUrl'>): DeadLetterSink | undefined {
  return config.deadLetterQueueUrl ? sqsOnDemand().deadLetters(config.deadLetterQueueUrl) : undefined;
}

/** Backs paced records off on the queue they came from, when the queue is known. */
export function createRecordDeferral(config: Pick<SenderConfig, 'sourceQueueUrl'>): RecordDeferral | undefined {
  return config.sourceQueueUrl ? sqsOnDemand().deferral(config.sourceQueueUrl) : undefined;
}
