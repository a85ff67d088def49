import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { NodeHttpHandler } from '@smithy/node-http-handler';
import { DynamoDbLedger } from '../../functions/adapters/dynamodb-ledger';
import { DynamoDbLimitStore } from '../../functions/adapters/dynamodb-limit-store';
import { COUNTER_PARTITION_PREFIX } from '../../functions/core/policy/message-limits';
import { ledgerClientConfig } from '../../functions/adapters/ledger-client-config';
import { ledgerWriteOf } from '../../local/aws/wire-operation';
import type { PortGates } from './port-gates';

type HttpRequest = Parameters<NodeHttpHandler['handle']>[0];
type HandlerOptions = Parameters<NodeHttpHandler['handle']>[1];
type HandlerResult = Awaited<ReturnType<NodeHttpHandler['handle']>>;

/**
 * What the network does to one request attempt:
 * - `lose-response`: the write happens, its answer is lost; the SDK retries;
 * - `late-copy`: the attempt is held up; the caller times out and retries, and the copy lands whenever the scheduler says;
 * - `cut-off`: the caller's link to DynamoDB breaks (this attempt and all its later ones fail: it gives
 *   up on a ledger error), and this attempt's copy lands only after a claim lease has passed and
 *   another actor's write on the same row has executed (a takeover, typically), or when nothing
 *   else can move.
 */
export type LedgerWireFault = 'lose-response' | 'late-copy' | 'cut-off';

/** One request attempt that reached DynamoDB (dynalite) and what it answered: the ledger side of the history. */
export interface LedgerWireRecord {
  readonly seq: number;
  readonly actor: string;
  readonly operation: string;
  readonly write: string;
  readonly key: string | undefined;
  readonly status: number;
  /** For writes that succeeded: the state they wrote (complete) and the claim version they were fenced on. */
  readonly body: Record<string, unknown>;
}

/** The network between the actors and dynalite, as the scheduler and the fault plan decide it. */
export class LedgerNetwork {
  /** Every attempt that executed at dynalite, in execution order. */
  readonly executed: LedgerWireRecord[] = [];
  private attempts = 0;
  private down = false;
  private enabled = true;
  private readonly cutOff = new Set<string>();
  /** Execution environments (`w1`) whose link to DynamoDB is down while every other actor's works. */
  private readonly partitioned = new Set<string>();
  private readonly heldCopies: { key: string | undefined; actor: string; resolve: () => void }[] = [];
  private releaseHeld: () => void = () => undefined;
  private readonly pastLease = new Promise<void>((resolve) => {
    this.releaseHeld = resolve;
  });
  /** Faults injected, by kind. */
  readonly faults = new Map<string, number>();
  /** Told of every attempt that executed, inside its I/O (the model's stream of the ledger). @default nothing */
  onExecuted: (record: LedgerWireRecord) => Promise<void> = async () => undefined;

  constructor(
    private readonly gates: PortGates,
    private readonly real: NodeHttpHandler,
    /** Which attempts (by global attempt number) the network mistreats. */
    private readonly plan: ReadonlyMap<number, LedgerWireFault>,
  ) {}

  setDown(down: boolean): void {
    if (down && this.enabled) this.count('ledger outage');
    this.down = down && this.enabled;
  }

  /** Partitions armed: an environment cut off once its next claim or takeover of a key executes. */
  private readonly partitionsArmed: { environments: readonly string[]; key: string; cut: (environment: string) => void }[] = [];

  /**
   * Cuts the first of `environments` whose claim or takeover of `key` executes off from DynamoDB (its answer still
   * arrives): from then on, its requests are refused while every other actor still reaches DynamoDB. Resolves then,
   * with the environment cut off.
   */
  partitionAfterClaim(environments: readonly string[], key: string): Promise<string> {
    return new Promise((cut) => this.partitionsArmed.push({ environments, key, cut }));
  }

  private readonly claimWaiters: { environment: string; key: string; resolve: () => void }[] = [];

  /** Resolves once a claim or takeover of `key` by another environment than `environment` has executed. */
  claimedByAnother(environment: string, key: string): Promise<void> {
    return new Promise((resolve) => this.claimWaiters.push({ environment, key, resolve }));
  }

  /** The environment reaches DynamoDB again. */
  reconnect(environment: string): void {
    this.partitioned.delete(environment);
  }

  /** Resolves once another actor's write on `key` has executed, or when {@link releaseHeldCopies} is called. */
  private nextRequestOn(key: string | undefined, actor: string): Promise<void> {
    return new Promise((resolve) => this.heldCopies.push({ key, actor, resolve }));
  }

  /** Lets every held copy land (nothing else can move). True if there was any. */
  releaseHeldCopies(): boolean {
    this.releaseHeld();
    const held = this.heldCopies.splice(0);
    for (const copy of held) copy.resolve();
    return held.length > 0;
  }

  /**
   * Whether `actor` has handed the row back since the ledger had executed `sinceCount` requests: one
   * of its writes on `key` (an outcome or a release, or a held copy of one) succeeded.
   */
  handedBack(actor: string, key: string, sinceCount: number): boolean {
    return this.executed
      .slice(sinceCount)
      .some((r) => r.actor === actor && r.key === key && r.status === 200 && r.write !== 'get' && r.write !== 'query' && r.write !== 'status');
  }

  /** A claim lease has passed on the clock: copies held that long may land now. */
  leasePassed(): void {
    this.releaseHeld();
  }

  /** From now on, every request goes through untouched (the faults stop). */
  stopFaults(): void {
    this.enabled = false;
    this.down = false;
    this.partitioned.clear();
  }

  private cutOffArmed(environment: string, key: string | undefined): void {
    for (const waiter of this.claimWaiters.filter((w) => w.key === key && w.environment !== environment)) {
      this.claimWaiters.splice(this.claimWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    const armed = this.partitionsArmed.find((p) => p.environments.includes(environment) && p.key === key);
    if (!armed) return;
    this.partitionsArmed.splice(this.partitionsArmed.indexOf(armed), 1);
    this.partitioned.add(environment);
    this.count('environment cut off after its claim, across a lease');
    armed.cut(environment);
  }

  private count(kind: string): void {
    this.faults.set(kind, (this.faults.get(kind) ?? 0) + 1);
  }

  /**
   * A real ledger adapter and limit store for one actor, on one real SDK client with the production
   * settings (as the Lambdas build them), over this network.
   */
  ledgerFor(actor: string, tableName: string, endpoint: string): { ledger: DynamoDbLedger; limitStore: DynamoDbLimitStore; client: DynamoDBClient } {
    const config = ledgerClientConfig();
    const client = new DynamoDBClient({
      ...config,
      requestHandler: new ScheduledHandler(this, actor),
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    return { ledger: new DynamoDbLedger(client, tableName), limitStore: new DynamoDbLimitStore(client, tableName), client };
  }

  /** One SDK attempt: the request leaves when the scheduler says, then its answer arrives when it says. */
  async attempt(actor: string, request: HttpRequest, options: HandlerOptions): Promise<HandlerResult> {
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = target.slice(target.lastIndexOf('.') + 1);
    const body = typeof request.body === 'string' ? request.body : request.body instanceof Uint8Array ? Buffer.from(request.body).toString('utf8') : '';
    const parsed = JSON.parse(body || '{}') as Record<string, unknown>;
    const write = ledgerWriteOf(operation, body);
    const key = keyOf(parsed);
    const what = `${write}${key ? ` ${key.slice(-6)}` : ''}`;
    this.attempts += 1;
    const fault = this.enabled ? this.plan.get(this.attempts) : undefined;

    await this.gates.pass(actor, `ledger-request ${what}`);
    if (this.down) throw networkError('ECONNREFUSED', 'connect ECONNREFUSED (ledger unavailable)');
    if (this.enabled && this.cutOff.has(actor)) throw networkError('ECONNREFUSED', 'connect ECONNREFUSED (cut off)');
    if (this.partitioned.has(environmentOf(actor))) throw networkError('ECONNREFUSED', 'connect ECONNREFUSED (environment cut off)');
    if (fault === 'cut-off') this.cutOff.add(actor);
    if (fault === 'late-copy' || fault === 'cut-off') {
      // The attempt is held up in the network: the caller times out and the SDK retries, while
      // this copy reaches DynamoDB whenever the scheduler says (maybe after the outcome).
      this.count(fault === 'late-copy' ? 'ledger request held, copy late' : 'worker cut off, copy past a lease');
      const held = fault === 'late-copy' ? Promise.resolve() : this.pastLease.then(() => this.nextRequestOn(key, actor));
      void held
        .then(() => this.gates.pass('network', `late copy of ${actor}'s ${what}`))
        // Recorded as the sender's own write: it is, arriving late.
        .then(() => this.execute(actor, request, options, operation, write, key, parsed));
      throw timeoutError();
    }
    const result = await this.execute(actor, request, options, operation, write, key, parsed);
    await this.gates.pass(actor, `ledger-response ${what} ${result.response.statusCode}`);
    if (fault === 'lose-response') {
      this.count('ledger response lost after the write');
      throw timeoutError();
    }
    return result;
  }

  private async execute(
    actor: string,
    request: HttpRequest,
    options: HandlerOptions,
    operation: string,
    write: string,
    key: string | undefined,
    parsed: Record<string, unknown>,
  ): Promise<HandlerResult> {
    return this.gates.io(async () => {
      const { response } = await this.real.handle(request, options);
      const chunks: Buffer[] = [];
      for await (const chunk of response.body as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
      const bytes = Buffer.concat(chunks);
      const record: LedgerWireRecord = { seq: this.executed.length + 1, actor, operation, write, key, status: response.statusCode, body: parsed };
      this.executed.push(record);
      // The table's stream sees the write as it executes (one item's writes in order, nothing else between).
      await this.onExecuted(record);
      if (this.enabled && response.statusCode === 200 && (write === 'claim' || write === 'takeover')) this.cutOffArmed(environmentOf(actor), key);
      if (key !== undefined && write !== 'get' && write !== 'query') {
        for (const copy of this.heldCopies.filter((c) => c.key === key && c.actor !== actor)) {
          this.heldCopies.splice(this.heldCopies.indexOf(copy), 1);
          copy.resolve();
        }
      }
      return { response: { statusCode: response.statusCode, reason: response.reason, headers: response.headers, body: bytes } };
    });
  }
}

/** The SDK's request handler for one actor: the production NodeHttpHandler, behind the scheduled network. */
class ScheduledHandler {
  readonly metadata = { handlerProtocol: 'http/1.1' };
  constructor(
    private readonly network: LedgerNetwork,
    private readonly actor: string,
  ) {}
  handle(request: HttpRequest, options?: HandlerOptions): Promise<HandlerResult> {
    return this.network.attempt(this.actor, request, options);
  }
  updateHttpClientConfig(): void {}
  httpHandlerConfigs(): Record<string, never> {
    return {};
  }
  destroy(): void {}
}

/** Actors are named `<environment>.<invocation>` (`w1.d3`, `w1.m2.r1`, `e4.reclaimer`): the environment an actor runs in. */
export function environmentOf(actor: string): string {
  return actor.split('.')[0] ?? actor;
}

/** The ledger key (`sk`) a request is about, if it names one; a limit counter's partition and window index. */
function keyOf(body: Record<string, unknown>): string | undefined {
  const item = (body.Key ?? body.Item) as Record<string, { S?: string }> | undefined;
  const partition = item?.pk?.S;
  if (partition?.startsWith(COUNTER_PARTITION_PREFIX)) return `${partition}|${item?.sk?.S ?? ''}`;
  return item?.sk?.S;
}

function timeoutError(): Error {
  // What the NodeHttpHandler throws when the response does not come in time: retryable by the SDK.
  return Object.assign(new Error('Connection timed out after 1500 ms'), { name: 'TimeoutError' });
}

function networkError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}
