import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SQSClient } from '@aws-sdk/client-sqs';
import { LOCAL_REGION, LOOPBACK_CREDENTIALS } from '../../local/local-dynamo';

/** What the child starts: the queue's settings and the providers' per-second quotas. */
export interface ProviderServicesSettings {
  readonly visibilityTimeoutSeconds: number;
  readonly maxReceiveCount: number;
  readonly emailPerSecond: number;
  readonly smsPerSecond: number;
  /** Names of more queue pairs to create beside the main one (the lanes). @default none */
  readonly extraQueues?: readonly string[];
}

export type ProviderServicesRequest = { readonly type: 'collect' } | { readonly type: 'stop' };
export type ProviderServicesMessage =
  | {
      readonly type: 'ready';
      readonly endpoints: { readonly sqs: string; readonly ses: string; readonly sns: string };
      readonly queue: { readonly queueUrl: string; readonly queueArn: string; readonly dlqUrl: string };
      /** The extra queue pairs, by the names asked for. */
      readonly extraQueues: Readonly<Record<string, { readonly queueUrl: string; readonly queueArn: string; readonly dlqUrl: string }>>;
    }
  | { readonly type: 'accepted'; readonly sends: readonly AcceptedSend[] };

/** One send SES or SNS accepted, as the server counted it. */
export interface AcceptedSend {
  readonly key: string;
  readonly channel: string;
  /** Epoch milliseconds. */
  readonly acceptedAt: number;
}

/** Local SQS, SES v2 and SNS running in a child process on loopback. */
export interface ProviderServices {
  readonly endpoints: Extract<ProviderServicesMessage, { type: 'ready' }>['endpoints'];
  readonly queue: Extract<ProviderServicesMessage, { type: 'ready' }>['queue'];
  readonly extraQueues: Extract<ProviderServicesMessage, { type: 'ready' }>['extraQueues'];
  /** An SQS client with the loopback endpoint, region and dummy credentials set explicitly. */
  sqsClient(): SQSClient;
  /** Every send SES and SNS accepted, counted on their side. */
  acceptedSends(): Promise<readonly AcceptedSend[]>;
  stop(): Promise<void>;
}

/** Forks bench/pace/provider-services-process.ts under tsx and waits for its endpoints. */
export async function startProviderServices(settings: ProviderServicesSettings): Promise<ProviderServices> {
  const script = fileURLToPath(new URL('./provider-services-process.ts', import.meta.url));
  const child = fork(script, [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, PACE_SERVICES: JSON.stringify(settings) },
    execArgv: ['--import', 'tsx'],
  });
  const ready = await new Promise<Extract<ProviderServicesMessage, { type: 'ready' }>>((resolve, reject) => {
    child.once('message', (message: ProviderServicesMessage) => (message.type === 'ready' ? resolve(message) : reject(new Error('unexpected message'))));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`provider services process exited early (code ${code})`)));
  });
  const clients: SQSClient[] = [];
  return {
    endpoints: ready.endpoints,
    queue: ready.queue,
    extraQueues: ready.extraQueues,
    sqsClient() {
      const client = new SQSClient({ endpoint: ready.endpoints.sqs, region: LOCAL_REGION, credentials: LOOPBACK_CREDENTIALS });
      clients.push(client);
      return client;
    },
    acceptedSends: () => request(child),
    async stop() {
      for (const client of clients) client.destroy();
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ type: 'stop' } satisfies ProviderServicesRequest);
      });
    },
  };
}

function request(child: ChildProcess): Promise<readonly AcceptedSend[]> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ProviderServicesMessage) => {
      if (message.type !== 'accepted') return;
      child.off('message', onMessage);
      resolve(message.sends);
    };
    child.on('message', onMessage);
    child.once('error', reject);
    child.send({ type: 'collect' } satisfies ProviderServicesRequest);
  });
}
