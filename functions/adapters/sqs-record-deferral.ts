import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { RecordDeferral } from '../core/queue/record-deferral';

/** Backs a record off through SQS `ChangeMessageVisibility` on the queue it came from. */
export class SqsRecordDeferral implements RecordDeferral {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async defer(receiptHandle: string, seconds: number): Promise<void> {
    await this.client.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receiptHandle, VisibilityTimeout: seconds }),
    );
  }
}
