import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetter, DeadLetterSink } from '../core/dead-letter-sink';

/** Message attribute names on dead-lettered records: filter and alarm on them. */
export const DEAD_LETTER_ATTRIBUTE = {
  reason: 'notifier.failureReason',
  detail: 'notifier.failureDetail',
  sourceMessageId: 'notifier.sourceMessageId',
} as const;

/** Moves an invalid record to the SQS dead-letter queue with its reason, before it is acknowledged. */
export class SqsDeadLetters implements DeadLetterSink {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async deadLetter(letter: DeadLetter): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: letter.body.length > 0 ? letter.body : '(empty body)',
        MessageAttributes: {
          [DEAD_LETTER_ATTRIBUTE.reason]: { DataType: 'String', StringValue: letter.reason },
          [DEAD_LETTER_ATTRIBUTE.detail]: { DataType: 'String', StringValue: letter.detail.slice(0, 1024) || '-' },
          [DEAD_LETTER_ATTRIBUTE.sourceMessageId]: { DataType: 'String', StringValue: letter.sourceMessageId },
        },
      }),
    );
  }
}
