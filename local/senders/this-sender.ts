import { randomUUID } from 'node:crypto';
import { paginateScan } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { DynamoDbLedger, itemToRow } from '../../functions/adapters/dynamodb-ledger';
import { DynamoDbLimitStore } from '../../functions/adapters/dynamodb-limit-store';
import type { DestinationPolicy } from '../../functions/core/policy/destination-policy';
import type { SendRateGovernor } from '../../functions/core/policy/send-rate-governor';
import { LEDGER_TABLE } from '../../functions/core/ledger/ledger-table';
import { CONSENT_PARTITION_PREFIX } from '../../functions/adapters/dynamodb-consent-store';
import { COUNTER_PARTITION_PREFIX } from '../../functions/core/policy/message-limits';
import { FaultInjectingLimitStore } from '../fault-injecting-limit-store';
import { ensureLedgerTable } from '../../functions/adapters/ledger-table-setup';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import { createSenderHandler } from '../../functions/sender/create-sender-handler';
import { bindToEnvironment, type ExecutionEnvironment } from '../execution-environment';
import { FaultInjectingLedger } from '../fault-injecting-ledger';
import { FaultInjectingProvider } from '../fault-injecting-provider';
import { LEDGER_INDEX_KEYS, type IndexKeys } from '../gsi-write-model';
import { createLocalReclaimer } from '../reclaimer-hook';
import type { SenderPorts, SenderUnderTest } from './sender-under-test';

/** The GSIs of this sender's tables, for counting the index writes DynamoDB would bill. */
export function simulationTableIndexes(tableName: string): IndexKeys {
  return tableName.startsWith('ledger-') ? LEDGER_INDEX_KEYS : [];
}

/** What a run may change about this sender. */
export interface ThisSenderOptions {
  /** @default Date.now */
  readonly clock?: () => number;
  /** @default every destination allowed */
  readonly destinations?: DestinationPolicy;
  /** A send-rate governor for each execution environment, as each Lambda process has its own share. @default not paced */
  readonly governorPerEnvironment?: () => Pick<SendRateGovernor, 'acquire' | 'throttled'>;
}

/**
 * The real sender handler (`createSenderHandler`) over the DynamoDB ledger and its limit counters (in
 * the same table, as in Lambda), faults injected at its ports.
 */
export function thisSender(
  ports: SenderPorts,
  tableName = `ledger-${ports.runId}`,
  options: ThisSenderOptions = {},
): SenderUnderTest {
  const ledger = new DynamoDbLedger(ports.client, tableName);
  const limitStore = new FaultInjectingLimitStore(new DynamoDbLimitStore(ports.client, tableName), ports.plan);
  const clock = options.clock ?? Date.now;
  const messageClasses = buildMessageClassRegistry();
  return {
    name: 'this-sender',
    description: 'createSenderHandler: conditional claim, fenced takeover, class policy for unknown outcomes',
    setup: () => ensureLedgerTable(ports.adminClient, tableName),
    createHandler(env: ExecutionEnvironment) {
      const provider = bindToEnvironment(new FaultInjectingProvider(ports.outbox, ports.plan, env), env);
      return createSenderHandler({
        ledger: bindToEnvironment(new FaultInjectingLedger(ledger, ports.plan, env), env),
        providers: { email: provider, sms: provider, push: provider },
        deadLetters: bindToEnvironment(ports.deadLetters, env),
        metrics: ports.metrics,
        log: ports.log,
        clock,
        newOwnerToken: randomUUID,
        timing: { claimTimeoutMs: ports.timing.claimTimeoutMs, retentionMs: ports.timing.retentionMs },
        sendTimeoutMs: ports.timing.sendTimeoutMs,
        messageClasses,
        templates: ports.templates ?? repositoryTemplates(),
        maxBodyBytes: 64 * 1024,
        maxClockSkewMs: 300_000,
        maxConcurrentSends: ports.sendsPerInvocation,
        redelivery: ports.redelivery,
        readBeforeClaimOnRedelivery: ports.readBeforeClaimOnRedelivery,
        limitStore: bindToEnvironment(limitStore, env),
        destinations: options.destinations,
        governor: options.governorPerEnvironment?.(),
      });
    },
    finalRows: () => scanLedger(ports, tableName),
    createReclaimer(env: ExecutionEnvironment) {
      const provider = bindToEnvironment(new FaultInjectingProvider(ports.outbox, ports.plan, env), env);
      return createLocalReclaimer({
        ledger: bindToEnvironment(new FaultInjectingLedger(ledger, ports.plan, env), env),
        pending: bindToEnvironment(ledger, env),
        providers: { email: provider, sms: provider, push: provider },
        metrics: ports.metrics,
        log: ports.log,
        timing: ports.timing,
        clock,
        limitStore: bindToEnvironment(limitStore, env),
        destinations: options.destinations,
      });
    },
  };
}

/** Every row of a ledger table, by key. */
export async function scanLedger(ports: Pick<SenderPorts, 'adminClient'>, tableName: string): Promise<Map<string, LedgerRow>> {
  const rows = new Map<string, LedgerRow>();
  for await (const page of paginateScan({ client: ports.adminClient }, { TableName: tableName, ConsistentRead: true })) {
    for (const item of page.Items ?? []) {
      // The limit counters and the consent records share the table (dynamodb-limit-store.ts, dynamodb-consent-store.ts); they are no rows.
      const partition = item[LEDGER_TABLE.partitionKey]?.S ?? '';
      if (partition.startsWith(COUNTER_PARTITION_PREFIX) || partition.startsWith(CONSENT_PARTITION_PREFIX)) continue;
      const row = itemToRow(unmarshall(item));
      rows.set(row.key, row);
    }
  }
  return rows;
}
