// The AWS side of the three probes of `npm run test:aws` (what each proves and how it is judged: probes.ts, probe-verdicts.ts).
import { spawn } from 'node:child_process';
import { type SNSClient, SubscribeCommand, UnsubscribeCommand } from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import { type AlarmProbe, type DeadLetterProbe, type ReclaimProbe, setAlarmStateArgs, subscriberQueuePolicy } from './probes';

/** A subscriber queue on the alarm topic, created for the run; `remove` unsubscribes and deletes it. */
export interface AlarmSubscriber {
  readonly queueUrl: string;
  remove(): Promise<void>;
}

export async function subscribeToAlarms(sqs: SQSClient, sns: SNSClient, probe: AlarmProbe, topicArn: string): Promise<AlarmSubscriber> {
  const { QueueUrl: queueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: probe.subscriberQueueName, Attributes: { SqsManagedSseEnabled: 'true', MessageRetentionPeriod: '3600' } }),
  );
  if (!queueUrl) throw new Error(`CreateQueue ${probe.subscriberQueueName} returned no URL`);
  let subscriptionArn: string | undefined;
  const remove = async (): Promise<void> => {
    if (subscriptionArn) await sns.send(new UnsubscribeCommand({ SubscriptionArn: subscriptionArn })).catch((e: unknown) => console.error(e));
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch((e: unknown) => console.error(e));
  };
  try {
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
    const queueArn = Attributes?.QueueArn;
    if (!queueArn) throw new Error(`no ARN for ${queueUrl}`);
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { Policy: subscriberQueuePolicy(queueArn, topicArn) } }));
    // An SQS subscription in the same account is confirmed at once; ReturnSubscriptionArn gives its real ARN.
    ({ SubscriptionArn: subscriptionArn } = await sns.send(
      new SubscribeCommand({ TopicArn: topicArn, Protocol: 'sqs', Endpoint: queueArn, ReturnSubscriptionArn: true }),
    ));
  } catch (error) {
    await remove();
    throw error;
  }
  return { queueUrl, remove };
}

export function setAlarmState(probe: AlarmProbe, alarmName: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('aws', setAlarmStateArgs(probe, alarmName), { stdio: 'inherit' });
    child.on('error', (error) => reject(new Error(`aws cloudwatch set-alarm-state could not start (is the AWS CLI installed?): ${error.message}`)));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`aws cloudwatch set-alarm-state exited ${code}`))));
  });
}

/** Receives what is in the queue now (short wait), deleting each message once read when `consume`. */
export async function drain(sqs: SQSClient, queueUrl: string, { consume }: { readonly consume: (m: Message) => boolean }): Promise<Message[]> {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 5, MessageAttributeNames: ['All'], VisibilityTimeout: 30 }),
  );
  for (const m of Messages) {
    if (consume(m) && m.ReceiptHandle) await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
  }
  return Messages;
}

/** Plants the dead claim with the real adapter; refuses to go on if a row with its key exists. */
export async function plantDeadClaim(ledger: DynamoDbLedger, probe: ReclaimProbe): Promise<void> {
  const result = await ledger.claim(probe.row, probe.row.claimedAt);
  if (!result.claimed) throw new Error(`the planted claim ${probe.row.key} already exists: another run with this id?`);
}

/** Puts the malformed record on the notifier's queue; returns the SQS message id the DLQ copy must name. */
export async function sendMalformed(sqs: SQSClient, queueUrl: string, probe: DeadLetterProbe): Promise<string> {
  const { MessageId } = await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: probe.body }));
  if (!MessageId) throw new Error('SendMessage returned no message id');
  return MessageId;
}
