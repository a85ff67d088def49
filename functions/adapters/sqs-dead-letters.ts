import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetter, DeadLetterSink } from '../core/queue/dead-letter-sink';

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
          [DEAD_LETTER_ATTRIBUTE.detail]: { DataType: 'String', StringValue: sqsText(letter.detail.slice(0, 1024)) || '-' },
          [DEAD_LETTER_ATTRIBUTE.sourceMessageId]: { DataType: 'String', StringValue: letter.sourceMessageId },
        },
      }),
    );
  }
}

/**
 * A detail SQS takes: a String attribute has the body's character rules (tab, line breaks, U+0020-U+D7FF,
 * U+E000-U+FFFD, U+10000 and up), and a detail may name a producer's key holding a control character, or end in
 * half a surrogate pair where it was cut. Refused, the dead letter would fail and the record loop to the DLQ
 * without its reason; each character SQS refuses becomes U+FFFD instead.
 */
function sqsText(text: string): string {
  return text.toWellFormed().replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');
}
