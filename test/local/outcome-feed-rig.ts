import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import { EventBridgeOutcomeBus } from '../../functions/adapters/eventbridge-outcome-bus';
import { newClaimRow } from '../../functions/core/ledger/ledger-decision';
import { silentLog } from '../../functions/core/observability/log-port';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { OutcomeEventDetail } from '../../functions/core/outcome/outcome-event';
import { OUTCOME_STREAM_FILTERS } from '../../lib/outcome-stream-filter';
import { createOutcomePublisher } from '../../functions/outcomes/create-outcome-publisher';
import { asFunction } from '../../local/aws/calling-function';
import { createDynamoStreamEventSource, type DynamoStreamEventSource } from '../../local/aws/dynamo-stream-event-source';
import { startLocalDynamoStream, type LocalDynamoStream } from '../../local/aws/local-dynamo-stream';
import { startLocalEventBridge, type LocalEventBridge, type LocalEventBridgeOptions } from '../../local/aws/local-eventbridge';
import type { TestLedger } from '../support/ledger-server';
import { expectOutcomeEventSchema } from '../support/outcome-event-schema';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * The outcome feed on loopback: the real ledger adapter writing through the local stream to dynalite, the local
 * event source mapping with the stack's filter patterns, the real publisher and EventBridge client, the local bus.
 */
export interface OutcomeFeedRig {
  readonly ledger: DynamoDbLedger;
  readonly stream: LocalDynamoStream;
  readonly bus: LocalEventBridge;
  readonly mapping: DynamoStreamEventSource;
  readonly metrics: InMemoryMetrics;
  details(): OutcomeEventDetail[];
  stop(): Promise<void>;
}

export async function startOutcomeFeed(db: TestLedger, busOptions: Omit<LocalEventBridgeOptions, 'onKill'> = {}, clock: () => number = Date.now): Promise<OutcomeFeedRig> {
  const stream = await startLocalDynamoStream({ target: db.endpoint, clock });
  const client = new DynamoDBClient({ endpoint: stream.endpoint, region: 'us-east-1', credentials });
  let mapping: DynamoStreamEventSource | undefined;
  const bus = await startLocalEventBridge({ ...busOptions, onKill: () => mapping?.kill() });
  const events = new EventBridgeClient({ endpoint: bus.endpoint, region: 'us-east-1', credentials, maxAttempts: 2 });
  const metrics = new InMemoryMetrics();
  const publisher = createOutcomePublisher({ bus: new EventBridgeOutcomeBus(events, 'notifier-outcomes'), metrics, log: silentLog, retryPausesMs: [1, 1] });
  mapping = createDynamoStreamEventSource({
    stream,
    filters: OUTCOME_STREAM_FILTERS,
    // Each invocation runs as the outcome publisher: its AWS requests are told apart from the rig's own (test/iam/).
    handler: asFunction('outcomes', (event) => publisher(event, {} as never)),
    afterKill: () => bus.revive(),
    clock,
  });
  return {
    ledger: new DynamoDbLedger(client, db.tableName),
    stream,
    bus,
    mapping,
    metrics,
    details: () => {
      // Every event a test reads is checked against the committed schema.
      const details = bus.events().map((e) => e.detail as OutcomeEventDetail);
      expectOutcomeEventSchema(details);
      return details;
    },
    async stop() {
      await bus.stop();
      await stream.stop();
      client.destroy();
      events.destroy();
    },
  };
}

let counter = 0;

/** Claims a new message and settles it SENT, then records SES's delivery: three writes, two state changes. */
export async function sendAndDeliver(ledger: DynamoDbLedger, nowMs: number = Date.now()): Promise<string> {
  counter += 1;
  const key = `${String(counter).padStart(16, 'a')}${'b'.repeat(48)}`.slice(0, 64);
  const row = newClaimRow({
    subject: { key, eventId: `evt-${counter}`, recipientId: 'buyer-17', channel: 'email', templateId: 'order-shipped', messageClass: 'transactional', occurredAt: new Date(nowMs).toISOString() },
    ownerToken: `owner-${counter}`,
    nowMs,
    timing: { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 },
  });
  await ledger.claim(row, nowMs);
  await ledger.complete({ key, ownerToken: row.ownerToken, claimVersion: 1 }, { state: 'SENT', providerMessageId: `ses-${counter}` }, nowMs + 10, row.expiresAt);
  await ledger.recordDeliveryStatus(key, { status: 'Delivery', at: nowMs + 2_000, source: 'ses', claimVersion: 1 }, nowMs + 2_100);
  return key;
}

/** Every (key, state) a list of keys sent and delivered must have produced. */
export function expectedChanges(keys: readonly string[]): string[] {
  return keys.flatMap((key) => [`${key} SENT`, `${key} DELIVERED`]).sort();
}

/** The distinct (key, state) pairs on the bus. */
export function changesOnBus(details: readonly OutcomeEventDetail[]): string[] {
  return [...new Set(details.map((d) => `${d.key} ${d.state}`))].sort();
}
