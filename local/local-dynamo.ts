import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** Dummy credentials: dynalite does not check signatures, and nothing here may reach AWS. */
export const LOOPBACK_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;
export const LOCAL_REGION = 'us-east-1';

export interface LocalDynamoOptions {
  /** Folder for a persistent LevelDB store. @default in memory */
  readonly dataDir?: string;
  /**
   * Run dynalite in its own Node process, so it gets a CPU core of its own (benchmarks).
   * @default false (in this process)
   */
  readonly separateProcess?: boolean;
}

/** A DynamoDB-compatible server on 127.0.0.1 and a way to build clients for it. */
export interface LocalDynamo {
  readonly endpoint: string;
  /** A client with an explicit loopback endpoint, region and dummy credentials. */
  client(options?: { readonly maxAttempts?: number }): DynamoDBClient;
  stop(): Promise<void>;
}

/** Starts dynalite on a free loopback port. */
export async function startLocalDynamo(options: LocalDynamoOptions = {}): Promise<LocalDynamo> {
  const { port, stop } = options.separateProcess ? await startChild(options.dataDir) : await startInProcess(options.dataDir);
  const endpoint = `http://127.0.0.1:${port}`;
  const clients: DynamoDBClient[] = [];
  return {
    endpoint,
    client(clientOptions = {}) {
      const client = new DynamoDBClient({
        endpoint,
        region: LOCAL_REGION,
        credentials: LOOPBACK_CREDENTIALS,
        maxAttempts: clientOptions.maxAttempts ?? 3,
      });
      clients.push(client);
      return client;
    },
    async stop() {
      for (const client of clients) client.destroy();
      await stop();
    },
  };
}

const SERVER_OPTIONS = { createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 } as const;

/** dynalite is an optional dependency of the installed package (only `notifier ledger --local` needs it). */
export class LocalDynamoUnavailableError extends Error {
  constructor(cause: unknown) {
    super('the local DynamoDB server (dynalite, an optional dependency) is not installed: run `npm install dynalite`', { cause });
    this.name = 'LocalDynamoUnavailableError';
  }
}

async function loadDynalite(): Promise<typeof import('dynalite')['default']> {
  try {
    return (await import('dynalite')).default;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') throw new LocalDynamoUnavailableError(error);
    throw error;
  }
}

async function startInProcess(dataDir: string | undefined): Promise<{ port: number; stop: () => Promise<void> }> {
  const dynalite = await loadDynalite();
  const server = dynalite({ ...SERVER_OPTIONS, ...(dataDir ? { path: dataDir } : {}) });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function startChild(dataDir: string | undefined): Promise<{ port: number; stop: () => Promise<void> }> {
  const script = fileURLToPath(new URL('./dynalite-process.mjs', import.meta.url));
  const child = fork(script, [], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, ...(dataDir ? { DYNALITE_PATH: dataDir } : {}) },
    execArgv: [],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`dynalite process exited early (code ${code})`)));
  });
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}
