import type { AddressInfo } from 'node:net';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { buildApp } from 'fauxqs';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS } from '../local-dynamo';
import { enforceVisibilityLimit } from './sqs-visibility-hooks';
import { VisibilityLimit } from './sqs-visibility-limit';

/** The queue pair `startLocalSqs` creates. */
export interface LocalSqsOptions {
  /** @default 'notifier-events' */
  readonly queueName?: string;
  /** @default `${queueName}-dlq` */
  readonly deadLetterQueueName?: string;
  /** Seconds a received message stays invisible (SQS takes whole seconds). @default 30 */
  readonly visibilityTimeoutSeconds?: number;
  /** Receives after which the next receive moves a message to the DLQ (RedrivePolicy). @default 5 */
  readonly maxReceiveCount?: number;
  /** MessageRetentionPeriod of the queue, in seconds. @default 345600 (4 days, SQS's default) */
  readonly retentionSeconds?: number;
  /** The clock of SQS's 12-hour visibility limit (sqs-visibility-limit.ts); fauxqs keeps its own. @default Date.now */
  readonly clock?: () => number;
}

/** How the created queue redelivers: what the stack tells the sender (QUEUE_* variables). */
export interface LocalQueueRedrive {
  readonly maxReceiveCount: number;
  readonly visibilityTimeoutSeconds: number;
  readonly retentionSeconds: number;
}

/** A queue and the dead-letter queue its RedrivePolicy points at. */
export interface LocalQueuePair {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly dlqUrl: string;
  readonly dlqArn: string;
}

/** A real SQS emulator on 127.0.0.1, with a queue whose RedrivePolicy points at its DLQ. */
export interface LocalSqs {
  /** `http://127.0.0.1:PORT`: give it to clients as `endpoint` or as AWS_ENDPOINT_URL_SQS. */
  readonly endpoint: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly dlqUrl: string;
  readonly dlqArn: string;
  readonly redrive: LocalQueueRedrive;
  /** An SQS client with the loopback endpoint, region and dummy credentials set explicitly. */
  client(): SQSClient;
  /** Another queue and its DLQ (`${name}-dlq`), with the same redrive settings (a second lane) or those given. */
  createQueuePair(name: string, redrive?: Partial<LocalQueueRedrive>): Promise<LocalQueuePair>;
  stop(): Promise<void>;
}

/**
 * Starts fauxqs (an SQS emulator speaking the JSON protocol the v3 SDK uses) on a free loopback
 * port and creates the queue and its dead-letter queue through the real SQS client. Only SQS is
 * used; fauxqs's SNS has no SMS or platform endpoints.
 *
 * Queue URLs are `http://127.0.0.1:PORT/000000000000/NAME`. fauxqs names its queues
 * `http://sqs.REGION.localhost:PORT/...`, and an SQS client without an explicit `endpoint` (one
 * that reads AWS_ENDPOINT_URL_SQS, as the sender's dead-letter client does) sends each request to
 * its QueueUrl's host: a name to resolve, off the loopback address. So the URLs are rewritten
 * both ways at the server's edge, where SQS's 12-hour visibility limit, which fauxqs leaves out, is enforced too
 * (sqs-visibility-limit.ts).
 */
export async function startLocalSqs(options: LocalSqsOptions = {}): Promise<LocalSqs> {
  const queueName = options.queueName ?? 'notifier-events';
  const deadLetterQueueName = options.deadLetterQueueName ?? `${queueName}-dlq`;
  // buildApp, not startFauxqs: that one listens on 0.0.0.0; this stays on loopback.
  const app = buildApp({ logger: false });
  let port = 0;
  const internalOrigin = () => new RegExp(`http://sqs\\.[a-z0-9-]+\\.localhost:${port}`, 'g');
  app.addHook('preHandler', async (request: { body: unknown }) => {
    const body: unknown = request.body;
    if (typeof body === 'object' && body !== null && 'QueueUrl' in body && typeof body.QueueUrl === 'string') {
      const url = new URL(body.QueueUrl);
      if (url.host === `127.0.0.1:${port}`) body.QueueUrl = `http://sqs.${LOCAL_REGION}.localhost:${port}${url.pathname}`;
    }
  });
  app.addHook('onSend', async (_request: unknown, _reply: unknown, payload: unknown) =>
    typeof payload === 'string' ? payload.replace(internalOrigin(), `http://127.0.0.1:${port}`) : payload,
  );
  // What fauxqs does not refuse and SQS does: a visibility past 12 hours from the receive.
  enforceVisibilityLimit(app, new VisibilityLimit(options.clock));
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
  const endpoint = `http://127.0.0.1:${port}`;
  const clients: SQSClient[] = [];
  const client = () => {
    const created = new SQSClient({ endpoint, region: LOCAL_REGION, credentials: LOOPBACK_CREDENTIALS });
    clients.push(created);
    return created;
  };
  const admin = client();
  const redrive: LocalQueueRedrive = {
    maxReceiveCount: options.maxReceiveCount ?? 5,
    visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 30,
    retentionSeconds: options.retentionSeconds ?? 345_600,
  };
  try {
    const main = await createQueuePair(admin, { queueName, deadLetterQueueName, redrive });
    return {
      endpoint,
      ...main,
      redrive,
      client,
      createQueuePair: (name, own) => createQueuePair(admin, { queueName: name, deadLetterQueueName: `${name}-dlq`, redrive: { ...redrive, ...own } }),
      async stop() {
        for (const c of clients) c.destroy();
        await app.close();
      },
    };
  } catch (error) {
    for (const c of clients) c.destroy();
    await app.close();
    throw error;
  }
}

async function createQueuePair(
  admin: SQSClient,
  { queueName, deadLetterQueueName, redrive }: { queueName: string; deadLetterQueueName: string; redrive: LocalQueueRedrive },
): Promise<LocalQueuePair> {
  const dlqUrl = requireValue((await admin.send(new CreateQueueCommand({ QueueName: deadLetterQueueName }))).QueueUrl, 'DLQ URL');
  const dlqArn = await queueArn(admin, dlqUrl);
  const created = await admin.send(
    new CreateQueueCommand({
      QueueName: queueName,
      Attributes: {
        VisibilityTimeout: String(redrive.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(redrive.retentionSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: redrive.maxReceiveCount }),
      },
    }),
  );
  const queueUrl = requireValue(created.QueueUrl, 'queue URL');
  return { queueUrl, queueArn: await queueArn(admin, queueUrl), dlqUrl, dlqArn };
}

async function queueArn(client: SQSClient, queueUrl: string): Promise<string> {
  const answer = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
  return requireValue(answer.Attributes?.QueueArn, 'QueueArn');
}

function requireValue(value: string | undefined, what: string): string {
  if (!value) throw new Error(`local SQS answered without a ${what}`);
  return value;
}
