import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDbLedger } from '../functions/adapters/dynamodb-ledger';
import type { LedgerReader } from '../functions/core/ledger/ledger-reader';
import { SHORT_KEY_LENGTH } from '../functions/core/event/idempotency-key';
import { ENV } from '../functions/core/sender-config';
import { startLocalDynamo } from '../local/local-dynamo';
import { LOCAL_TABLE_NAME } from '../local/local-table';
import { ledgerRowView, renderEventRows, renderLedgerRow } from '../local/ledger-render';

/** What the command touches, injectable for tests. */
export interface LedgerCommandIo {
  /** Opens the ledger. @default DynamoDB through the SDK's standard configuration (AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB, credentials chain) */
  readonly openReader?: (tableName: string) => LedgerReader & { close?: () => void | Promise<void> };
  /** @default process.stdout */
  readonly out?: (text: string) => void;
  /** @default process.stderr */
  readonly err?: (text: string) => void;
  /** @default process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const USAGE = `usage: notifier ledger show <key> [--table <name> | --local <dir>] [--json]
       notifier ledger event <eventId> [--table <name> | --local <dir>] [--json]

  show <key>        one message by its idempotency key (64 hex characters)
  event <eventId>   every message of one business event (all recipients and channels)

options:
  --table <name>    ledger table (default: $${ENV.tableName})
  --local <dir>     read the ledger a local run kept with \`npm start -- --data <dir>\`
                    (starts the embedded DynamoDB on that folder; table ${LOCAL_TABLE_NAME} unless --table)
  --json            machine-readable output
  -h, --help        this text

Works against AWS or a local endpoint through the SDK's own settings:
AWS_REGION / AWS_PROFILE, and AWS_ENDPOINT_URL_DYNAMODB (e.g. http://localhost:8000).
Addresses are masked; message content is never printed.
`;

const KEY = /^[0-9a-f]{64}$/;

/** Exit codes: 0 found, 1 not found or request failed, 2 usage error. */
export async function run(argv: string[], io: LedgerCommandIo = {}): Promise<number> {
  const out = io.out ?? ((text: string) => void process.stdout.write(text));
  const err = io.err ?? ((text: string) => void process.stderr.write(text));
  const env = io.env ?? process.env;

  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        table: { type: 'string' },
        local: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    out(USAGE);
    return 0;
  }
  const [sub, target, ...extra] = positionals;
  if ((sub !== 'show' && sub !== 'event') || !target || extra.length > 0) {
    err(USAGE);
    return 2;
  }
  const tableName = values.table ?? (values.local ? LOCAL_TABLE_NAME : env[ENV.tableName]);
  if (!tableName) {
    err(`no ledger table: pass --table <name> or set ${ENV.tableName}\n`);
    return 2;
  }
  if (sub === 'show' && !KEY.test(target)) {
    const hint = new RegExp(`^[0-9a-f]{${SHORT_KEY_LENGTH}}$`).test(target)
      ? `that looks like the short key from a log line (the key's first ${SHORT_KEY_LENGTH} characters); find the message with \`notifier ledger event <eventId>\``
      : 'a key is 64 lowercase hex characters';
    err(`not an idempotency key: ${hint}\n`);
    return 2;
  }

  const localDir = values.local;
  if (localDir !== undefined && !existsSync(localDir)) {
    err(`no local ledger in ${localDir}: run \`npm start -- --data ${localDir}\` first\n`);
    return 1;
  }
  const reader = io.openReader
    ? io.openReader(tableName)
    : localDir !== undefined
      ? openLocalReader(localDir, tableName)
      : openDynamoDbReader(tableName);
  try {
    if (sub === 'show') {
      const row = await reader.get(target);
      if (!row) {
        err(`no ledger row for key ${target} in table ${tableName} (never claimed, or expired after retention)\n`);
        return 1;
      }
      out(`${values.json ? JSON.stringify(ledgerRowView(row), null, 2) : renderLedgerRow(row)}\n`);
      return 0;
    }
    const rows = await reader.rowsForEvent(target);
    out(`${values.json ? JSON.stringify(rows.map(ledgerRowView), null, 2) : renderEventRows(target, rows)}\n`);
    return rows.length > 0 ? 0 : 1;
  } catch (error) {
    const name = (error as Error).name;
    const hint =
      name === 'ResourceNotFoundException'
        ? `table ${tableName} (or its index) does not exist in this region/endpoint`
        : name === 'CredentialsProviderError'
          ? 'no AWS credentials found (set AWS_PROFILE, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY for a local endpoint)'
          : (error as Error).message;
    err(`ledger request failed: ${name}: ${hint}\n`);
    return 1;
  } finally {
    await reader.close?.();
  }
}

/**
 * The ledger a local run persisted: dynalite started on that folder (the same LevelDB store
 * `npm start -- --data DIR` writes), on loopback, with dummy credentials.
 */
function openLocalReader(dataDir: string, tableName: string): LedgerReader & { close: () => Promise<void> } {
  const started = startLocalDynamo({ dataDir });
  const ledger = started.then((dynamo) => new DynamoDbLedger(dynamo.client(), tableName));
  return {
    get: async (key) => (await ledger).get(key),
    rowsForEvent: async (eventId) => (await ledger).rowsForEvent(eventId),
    close: async () => (await started).stop(),
  };
}

function openDynamoDbReader(tableName: string): LedgerReader & { close: () => void } {
  const client = new DynamoDBClient({});
  const ledger = new DynamoDbLedger(client, tableName);
  return {
    get: (key) => ledger.get(key),
    rowsForEvent: (eventId) => ledger.rowsForEvent(eventId),
    close: () => client.destroy(),
  };
}
