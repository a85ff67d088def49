import { GetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import type { FallbackQueue } from '../../functions/core/fallback/fallback-queue';
import { silentLog } from '../../functions/core/observability/log-port';
import type { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { MessageClassRegistry } from '../../functions/core/policy/message-class';
import type { LaneName } from '../../functions/core/policy/send-lanes';
import { createFallbackTrigger } from '../../functions/fallback/create-fallback-trigger';
import type { PortGates } from './port-gates';
import type { FallbackScenario } from './scenario';
import type { LedgerWireRecord } from './scheduled-ledger-transport';

/** How many times the mapping hands a failed record back, and SQS a request no sender settled, while faults last. */
const REDELIVERIES = 3;

export interface FallbackActorsOptions {
  readonly gates: PortGates;
  readonly scenario: FallbackScenario;
  /** The keys of the primaries that name a fallback: the stream's records of their rows are the trigger's input. */
  readonly primaryKeys: ReadonlySet<string>;
  /** A client outside the schedule: the stream reads each written item at once, as DynamoDB Streams images it. */
  readonly client: DynamoDBClient;
  readonly tableName: string;
  readonly classes: MessageClassRegistry;
  readonly bulkClasses: readonly string[];
  readonly clock: () => number;
  readonly metrics: InMemoryMetrics;
  /** A ledger over the scheduled network for one actor (the trigger's read of a fallback's row). */
  readonly ledgerOf: (actor: string) => Pick<DynamoDbLedger, 'get'>;
  /** Runs an actor; resolves `crashed` if it dies (at a gate, or by throwing). */
  readonly startActor: <T>(actor: string, work: () => Promise<T>) => Promise<T | 'crashed'>;
  /**
   * Hands a fallback request to a sender worker of `lane` (the `attempt`-th receive), in its execution environment;
   * resolves whether the sender settled it (false: handed back, crashed, early, or a message left unsettled).
   */
  readonly handToSender: (request: { readonly body: string; readonly lane: LaneName; readonly attempt: number }, actor: string) => Promise<boolean>;
  /** Whether faults still last (records and requests are redelivered only then; recovery delivers the rest). */
  readonly faultsOn: () => boolean;
}

/**
 * The ledger's stream and the fallback trigger, as the model's actors: every executed write that changed a primary's
 * row (a claim, a takeover, a release, an outcome, a status, a late copy) becomes a stream record with both images;
 * each record reaches the real trigger (`createFallbackTrigger`) at the scheduler's point, in any order with the
 * others (a superset of one shard's order), at least once (again after a failed or killed invocation, and a second
 * time when the scenario says so); each request the trigger puts reaches a sender worker of its lane, at least once.
 */
export class FallbackActors {
  private readonly images = new Map<string, Record<string, AttributeValue>>();
  private records = 0;
  private invocations = 0;
  private requests = 0;
  /** Records and requests that faults left undelivered: recovery hands them on. */
  private readonly left: (() => Promise<void>)[] = [];
  readonly trigger;
  /** Coverage: records, trigger invocations, requests put, requests the senders received. */
  readonly counts = { records: 0, invocations: 0, triggerCrashes: 0, requestsPut: 0, requestsReceived: 0 };

  constructor(private readonly options: FallbackActorsOptions) {
    this.trigger = (actor: string) =>
      createFallbackTrigger({
        queue: this.queueFor(actor),
        ledger: options.ledgerOf(actor),
        messageClasses: options.classes,
        bulkClasses: options.bulkClasses,
        clock: options.clock,
        metrics: options.metrics,
        log: silentLog,
      });
  }

  /** Called by the network inside an executed request's I/O: the stream's record of a write that changed a primary. */
  async executed(record: LedgerWireRecord): Promise<void> {
    if (record.key === undefined || !this.options.primaryKeys.has(record.key) || record.status !== 200 || record.write === 'get' || record.write === 'query') return;
    const named = (record.body.Key ?? record.body.Item) as Record<string, AttributeValue> | undefined;
    if (!named?.pk) return;
    const read = await this.options.client.send(new GetItemCommand({ TableName: this.options.tableName, Key: { pk: named.pk, sk: { S: record.key } }, ConsistentRead: true }));
    const before = this.images.get(record.key);
    const after = read.Item;
    if (after === undefined || JSON.stringify(after) === JSON.stringify(before)) return;
    this.images.set(record.key, after);
    this.records += 1;
    this.counts.records += 1;
    const streamRecord: DynamoDBRecord = {
      eventID: `s${this.records}`,
      eventName: before === undefined ? 'INSERT' : 'MODIFY',
      dynamodb: {
        SequenceNumber: String(this.records).padStart(21, '0'),
        Keys: { pk: named.pk, sk: { S: record.key } } as never,
        ...(before ? { OldImage: before as never } : {}),
        NewImage: after as never,
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    };
    void this.handRecord(streamRecord, `s${this.records}`, 0);
    if (this.options.scenario.streamRepeats) void this.handRecord(streamRecord, `s${this.records}x`, 0);
  }

  /** Hands whatever faults left undelivered on, once more (recovery: no faults). */
  async recover(): Promise<void> {
    for (const deliver of this.left.splice(0)) void deliver();
  }

  private async handRecord(record: DynamoDBRecord, name: string, attempt: number): Promise<void> {
    await this.options.gates.pass(`${name}.${attempt}`, `stream hands record ${name} to the trigger`);
    this.invocations += 1;
    this.counts.invocations += 1;
    const actor = `t${this.invocations}`;
    const crash = this.options.scenario.triggerCrashes.find(([n]) => n === this.invocations);
    if (crash && this.options.faultsOn()) {
      this.options.gates.crashActorAt(actor, crash[1]);
      this.counts.triggerCrashes += 1;
    }
    const answer = await this.options.startActor(actor, () => this.trigger(actor)({ Records: [record] }, {} as never));
    if (answer !== 'crashed' && answer.batchItemFailures.length === 0) return;
    const again = () => this.handRecord(record, name, attempt + 1);
    if (this.options.faultsOn() && attempt < REDELIVERIES) void again();
    else this.left.push(again);
  }

  private queueFor(actor: string): FallbackQueue {
    return {
      send: async ({ lane, body }) => {
        await this.options.gates.pass(actor, 'sqs takes a fallback request');
        this.requests += 1;
        this.counts.requestsPut += 1;
        void this.handRequest({ body, lane }, `q${this.requests}`, 0);
      },
    };
  }

  private async handRequest(request: { readonly body: string; readonly lane: LaneName }, name: string, attempt: number): Promise<void> {
    await this.options.gates.pass(`${name}.${attempt}`, `sqs delivers fallback request ${name}`);
    this.counts.requestsReceived += 1;
    const settled = await this.options.handToSender({ ...request, attempt }, `${name}.r${attempt}`);
    if (settled) return;
    const again = () => this.handRequest(request, name, attempt + 1);
    if (this.options.faultsOn() && attempt < REDELIVERIES) void again();
    else this.left.push(again);
  }
}
