import type { RedeliveryPolicy } from '../../functions/core/ledger/stale-claim-discovery';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { InMemoryDeadLetters } from '../../functions/core/queue/dead-letter-sink';
import type { DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import type { LogPort } from '../../functions/core/observability/log-port';
import type { TemplateRegistry } from '../../functions/core/templates/templates';
import type { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { ExecutionEnvironment } from '../execution-environment';
import type { FaultPlan } from '../fault-plan';
import type { BatchHandler } from '../lambda-event-source';
import type { LocalReclaimer } from '../reclaimer-hook';
import type { SimulationTiming } from '../simulation-timing';

/** The senders the simulator and the benchmark can drive. */
export const SENDER_NAMES = ['this-sender', 'powertools', 'naive'] as const;
export type SenderName = (typeof SENDER_NAMES)[number];

export { SCALED_TIMING, type SimulationTiming } from '../simulation-timing';

/** What every sender under test is built from. Its own DynamoDB table lives on `client`'s server. */
export interface SenderPorts {
  readonly plan: FaultPlan;
  /** The outbox (possibly wrapped for printing); every sender's provider calls end here. */
  readonly outbox: DeliveryProvider;
  /** DynamoDB client for the sender's requests (instrumented by the caller). */
  readonly client: DynamoDBClient;
  /** DynamoDB client for setup and final scans (not counted). */
  readonly adminClient: DynamoDBClient;
  readonly metrics: InMemoryMetrics;
  readonly deadLetters: InMemoryDeadLetters;
  readonly log: LogPort;
  readonly timing: SimulationTiming;
  /** Deliveries in flight at once inside one invocation (MAX_CONCURRENT_SENDS). */
  readonly sendsPerInvocation: number;
  /** Suffix that makes table names unique per run. */
  readonly runId: string;
  /**
   * How the queue redelivers, for senders that index only claims the queue may not bring back.
   * @default undefined: every claim is indexed
   */
  readonly redelivery?: RedeliveryPolicy;
  /** Read a redelivered message's row before claiming it. @default true (the sender's default) */
  readonly readBeforeClaimOnRedelivery?: boolean;
  /** The templates every sender renders with. @default the repository's templates */
  readonly templates?: TemplateRegistry;
}

/** A sender the event source can drive, with the same ports and faults as the others. */
export interface SenderUnderTest {
  readonly name: SenderName;
  /** One line on what it does, for reports. */
  readonly description: string;
  /** Creates the sender's table(s). */
  setup(): Promise<void>;
  /** A fresh handler for one execution environment, its ports bound to that environment. */
  createHandler(env: ExecutionEnvironment): BatchHandler;
  /** Final ledger rows by key, for a sender whose ledger records per-message states. */
  finalRows?(): Promise<Map<string, LedgerRow>>;
  /** A reclaimer run bound to its own execution environment, for a sender that has one. */
  createReclaimer?(env: ExecutionEnvironment): LocalReclaimer;
}
