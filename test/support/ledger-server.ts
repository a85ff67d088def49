import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import dynalite from 'dynalite';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import { ensureLedgerTable } from '../../functions/adapters/ledger-table-setup';

/** A real DynamoDB-compatible server and a fresh ledger table for one test file. */
export interface TestLedger {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly endpoint: string;
  readonly ledger: DynamoDbLedger;
  stop(): Promise<void>;
}

/**
 * Starts dynalite in memory on a free loopback port, unless `AWS_ENDPOINT_URL_DYNAMODB`
 * names another server (DynamoDB Local: `http://localhost:8000`), or `TEST_LEDGER_ON_AWS=true`
 * asks for real DynamoDB with the caller's credentials. Each call gets its own table.
 */
export async function startTestLedger(): Promise<TestLedger> {
  const external = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  const onAws = process.env.TEST_LEDGER_ON_AWS === 'true';
  let server: ReturnType<typeof dynalite> | undefined;
  let endpoint: string;
  if (external || onAws) {
    endpoint = external ?? 'aws';
  } else {
    server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const client = new DynamoDBClient(
    onAws && !external
      ? {}
      : { endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } },
  );
  const tableName = `ledger-test-${randomUUID().slice(0, 8)}`;
  await ensureLedgerTable(client, tableName);
  return {
    client,
    tableName,
    endpoint,
    ledger: new DynamoDbLedger(client, tableName),
    async stop() {
      if (server) {
        await new Promise<void>((resolve) => server!.close(() => resolve()));
      } else {
        await client.send(new DeleteTableCommand({ TableName: tableName }));
      }
      client.destroy();
    },
  };
}

/**
 * Starts a test ledger before the file's tests and stops it after them. The returned object
 * stands for the running ledger; use it inside tests and hooks only.
 */
export function useTestLedger(): TestLedger {
  let current: TestLedger | undefined;
  beforeAll(async () => {
    current = await startTestLedger();
  });
  afterAll(async () => {
    await current?.stop();
  });
  return new Proxy({} as TestLedger, {
    get(_target, property) {
      if (!current) throw new Error('The test ledger is not running: use it inside a test or a hook');
      return Reflect.get(current, property) as unknown;
    },
  });
}
