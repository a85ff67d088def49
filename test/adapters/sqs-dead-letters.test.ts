import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEAD_LETTER_ATTRIBUTE, SqsDeadLetters } from '../../functions/adapters/sqs-dead-letters';
import type { DeadLetter } from '../../functions/core/queue/dead-letter-sink';

const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/notifier-dlq';
const sqs = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 't', secretAccessKey: 't' } });
const sqsMock = mockClient(sqs);
beforeEach(() => {
  sqsMock.reset();
  sqsMock.on(SendMessageCommand).resolves({ MessageId: 'dlq-1' });
});

const letter: DeadLetter = { body: '{"eventId":"e-1"}', reason: 'SchemaViolation', detail: 'recipients: Required', sourceMessageId: 'm-1' };

async function sent(deadLetter: DeadLetter) {
  await new SqsDeadLetters(sqs, QUEUE_URL).deadLetter(deadLetter);
  return sqsMock.commandCalls(SendMessageCommand).map((call) => call.args[0].input);
}

describe('a dead letter on the SQS dead-letter queue', () => {
  it('keeps the body as it came, with the reason, the detail and the source message id as String attributes', async () => {
    expect(await sent(letter)).toEqual([
      {
        QueueUrl: QUEUE_URL,
        MessageBody: '{"eventId":"e-1"}',
        MessageAttributes: {
          [DEAD_LETTER_ATTRIBUTE.reason]: { DataType: 'String', StringValue: 'SchemaViolation' },
          [DEAD_LETTER_ATTRIBUTE.detail]: { DataType: 'String', StringValue: 'recipients: Required' },
          [DEAD_LETTER_ATTRIBUTE.sourceMessageId]: { DataType: 'String', StringValue: 'm-1' },
        },
      },
    ]);
  });

  it('an empty body, which SQS refuses, is sent as "(empty body)"', async () => {
    expect((await sent({ ...letter, body: '', reason: 'NotJson' }))[0]?.MessageBody).toBe('(empty body)');
  });

  it('a detail is cut to 1024 characters, and an empty one (which SQS refuses) is "-"', async () => {
    const long = await sent({ ...letter, detail: 'x'.repeat(1025) });
    expect(long[0]?.MessageAttributes?.[DEAD_LETTER_ATTRIBUTE.detail]?.StringValue).toBe('x'.repeat(1024));
    sqsMock.resetHistory();
    const empty = await sent({ ...letter, detail: '' });
    expect(empty[0]?.MessageAttributes?.[DEAD_LETTER_ATTRIBUTE.detail]?.StringValue).toBe('-');
  });

  it('a detail holds only characters SQS takes in an attribute (its body rules): each other one, and half a pair left by the cut, becomes U+FFFD', async () => {
    const detail = `data.a\u0001b\uFFFE: Invalid input; tab\tand line\nkept ${'x'.repeat(979)}😀`;
    const [input] = await sent({ ...letter, detail });
    expect(detail.slice(0, 1024).isWellFormed()).toBe(false);
    expect(input?.MessageAttributes?.[DEAD_LETTER_ATTRIBUTE.detail]?.StringValue).toBe(
      `data.a\uFFFDb\uFFFD: Invalid input; tab\tand line\nkept ${'x'.repeat(979)}\uFFFD`,
    );
  });
});
