import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalSqs, type LocalSqs } from '../../local/aws/local-sqs';

let sqs: LocalSqs;
let client: SQSClient;
/** The limit's clock: moved on by hand, so "an hour after the receive" takes no hour. */
let now = Date.parse('2026-11-30T02:00:00Z');

beforeAll(async () => {
  sqs = await startLocalSqs({ queueName: 'visibility-limit', clock: () => now });
  client = sqs.client();
});
afterAll(async () => sqs?.stop());

async function receivedHandle(): Promise<string> {
  await client.send(new SendMessageCommand({ QueueUrl: sqs.queueUrl, MessageBody: '{}' }));
  const answer = await client.send(new ReceiveMessageCommand({ QueueUrl: sqs.queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 0 }));
  const handle = answer.Messages?.[0]?.ReceiptHandle;
  if (!handle) throw new Error('nothing received');
  return handle;
}
const change = (handle: string, seconds: number) =>
  client.send(new ChangeMessageVisibilityCommand({ QueueUrl: sqs.queueUrl, ReceiptHandle: handle, VisibilityTimeout: seconds }));

describe("the local SQS refuses a visibility past 12 hours from the receive, as SQS does (fauxqs alone does not)", () => {
  it('refuses 43,200 s a second after the receive with InvalidParameterValue, and takes what still fits', async () => {
    const handle = await receivedHandle();
    now += 1_000;
    // The error the emulator gives for a value out of range, as the SDK names it, with SQS's own reason.
    const outOfRange = await change(handle, 43_201).catch((error: Error) => error);
    expect(outOfRange).toMatchObject({ name: expect.stringMatching(/InvalidParameterValue$/) });
    await expect(change(handle, 43_200)).rejects.toMatchObject({
      name: (outOfRange as Error).name,
      message: 'Value 43200 for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]',
    });
    await expect(change(handle, 43_199)).resolves.toBeDefined();
  });

  it('extending does not reset the limit: three hours after the receive, 9 h fits and 9 h 1 s does not', async () => {
    const handle = await receivedHandle();
    await change(handle, 3 * 3_600);
    now += 3 * 3_600_000;
    await expect(change(handle, 9 * 3_600 + 1)).rejects.toMatchObject({ name: expect.stringMatching(/InvalidParameterValue$/) });
    await expect(change(handle, 9 * 3_600)).resolves.toBeDefined();
  });

  it('refuses the batch entries past the limit one by one, and changes the others', async () => {
    const late = await receivedHandle();
    const fresh = await receivedHandle();
    now += 1_000;
    const answer = await client.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: sqs.queueUrl,
        Entries: [
          { Id: 'late', ReceiptHandle: late, VisibilityTimeout: 43_200 },
          { Id: 'fresh', ReceiptHandle: fresh, VisibilityTimeout: 60 },
        ],
      }),
    );
    expect(answer.Successful?.map((e) => e.Id)).toEqual(['fresh']);
    expect(answer.Failed).toEqual([expect.objectContaining({ Id: 'late', Code: 'InvalidParameterValue', SenderFault: true })]);
  });
});
