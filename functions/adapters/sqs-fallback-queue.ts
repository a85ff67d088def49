import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { LaneName } from '../core/policy/send-lanes';
import type { FallbackQueue } from '../core/fallback/fallback-queue';

/** The sender's queues by lane, as SendMessage puts a fallback's request on them. */
export class SqsFallbackQueue implements FallbackQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrls: Readonly<Record<LaneName, string>>,
  ) {}

  async send({ lane, body, delaySeconds }: { readonly lane: LaneName; readonly body: string; readonly delaySeconds: number }): Promise<void> {
    await this.client.send(new SendMessageCommand({ QueueUrl: this.queueUrls[lane], MessageBody: body, DelaySeconds: delaySeconds }));
  }
}
