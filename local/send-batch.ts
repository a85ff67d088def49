import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** Puts `bodies` on the queue in one batch, noting each message id's body (a run's injection). */
export async function sendBatch(sqs: SQSClient, queueUrl: string, bodies: readonly string[], bodyOfMessage: Map<string, string>): Promise<void> {
  const answer = await sqs.send(
    new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: bodies.map((body, i) => ({ Id: String(i), MessageBody: body })) }),
  );
  if (answer.Failed?.length) throw new Error(`SendMessageBatch refused ${answer.Failed.length} messages: ${answer.Failed[0]?.Message ?? ''}`);
  for (const entry of answer.Successful ?? []) {
    const body = bodies[Number(entry.Id)];
    if (entry.MessageId && body !== undefined) bodyOfMessage.set(entry.MessageId, body);
  }
}
