import { GetQueueAttributesCommand, ReceiveMessageCommand, type Message, type QueueAttributeName, type SQSClient } from '@aws-sdk/client-sqs';

/** Messages on a queue by state, from GetQueueAttributes (exact on the emulator, approximate on SQS). */
export interface QueueDepth {
  readonly visible: number;
  readonly inFlight: number;
  readonly delayed: number;
}

export async function queueDepth(client: SQSClient, queueUrl: string): Promise<QueueDepth> {
  const answer = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  const read = (name: QueueAttributeName) => Number(answer.Attributes?.[name] ?? 0);
  return {
    visible: read('ApproximateNumberOfMessages'),
    inFlight: read('ApproximateNumberOfMessagesNotVisible'),
    delayed: read('ApproximateNumberOfMessagesDelayed'),
  };
}

/** True when nothing is visible, in flight or delayed. */
export async function queueIsEmpty(client: SQSClient, queueUrl: string): Promise<boolean> {
  const depth = await queueDepth(client, queueUrl);
  return depth.visible + depth.inFlight + depth.delayed === 0;
}

/**
 * Receives every visible message once, with all attributes, hiding each for `hideSeconds` so
 * that none is read twice; leaves them on the queue (a look at a DLQ, not a consumer).
 */
export async function readAllVisible(client: SQSClient, queueUrl: string, hideSeconds = 300): Promise<Message[]> {
  const messages: Message[] = [];
  for (;;) {
    const answer = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: hideSeconds,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    if (!answer.Messages?.length) return messages;
    messages.push(...answer.Messages);
  }
}
