import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { METRIC } from '../../functions/core/observability/metric-names';
import { bindToEnvironment, type ExecutionEnvironment } from '../execution-environment';
import { throttlingError } from '../fault-injecting-ledger';
import { FaultInjectingProvider } from '../fault-injecting-provider';
import type { FaultPlan } from '../fault-plan';
import { baselineHandler, dimensionsOf } from './baseline-handler';
import type { SenderPorts, SenderUnderTest } from './sender-under-test';

/** The naive sender's store: read, then write. Nothing ties the two together. */
export class NaiveSentStore {
  private readonly doc: DynamoDBDocumentClient;
  constructor(
    client: SenderPorts['client'],
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client);
  }

  async has(key: string): Promise<boolean> {
    const result = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: { pk: key }, ConsistentRead: true }));
    return result.Item !== undefined;
  }

  async put(key: string, state: 'SENT' | 'FAILED'): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.tableName, Item: { pk: key, state } }));
  }
}

/** Faults at the naive store's steps: the read stands in for the claim, the write for the outcome. */
class FaultInjectingNaiveStore {
  constructor(
    private readonly inner: NaiveSentStore,
    private readonly plan: FaultPlan,
    private readonly env: ExecutionEnvironment,
  ) {}

  async has(key: string): Promise<boolean> {
    if (this.plan.roll('dynamoThrottle', key, 'claim')) throw throttlingError();
    if (this.plan.roll('crashBeforeClaim', key)) return this.env.crash();
    const found = await this.inner.has(key);
    if (!found && this.plan.roll('crashAfterClaim', key)) return this.env.crash();
    return found;
  }

  async put(key: string, state: 'SENT' | 'FAILED'): Promise<void> {
    if (this.plan.roll('dynamoThrottle', key, 'complete')) {
      if (state === 'SENT') this.plan.noteUnrecordedReach(key);
      throw throttlingError();
    }
    await this.inner.put(key, state);
    if (this.plan.roll('crashAfterOutcome', key)) return this.env.crash();
  }
}

/** Check-then-insert: GetItem, send if absent, PutItem. Two workers can both see "absent". */
export function naiveSender(ports: SenderPorts, tableName = `naive-${ports.runId}`): SenderUnderTest {
  const store = new NaiveSentStore(ports.client, tableName);
  return {
    name: 'naive',
    description: 'check-then-insert: GetItem, send if absent, then PutItem (the race the brief warns about)',
    async setup() {
      await ports.adminClient.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
          KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        }),
      );
    },
    createHandler(env) {
      const guarded = bindToEnvironment(new FaultInjectingNaiveStore(store, ports.plan, env), env);
      const provider = bindToEnvironment(new FaultInjectingProvider(ports.outbox, ports.plan, env), env);
      return baselineHandler(ports, bindToEnvironment(ports.deadLetters, env), async (plan) => {
        if (!plan.prepared.ok) return true; // cannot be addressed or rendered: nothing to send
        if (await guarded.has(plan.key)) {
          ports.metrics.count(METRIC.DuplicateSuppressed, dimensionsOf(plan));
          return true;
        }
        // No ledger claim here: every call is the first and only version.
        const outcome = await provider.send({ ...plan.prepared.request, claimVersion: 1 }, AbortSignal.timeout(ports.timing.sendTimeoutMs));
        if (outcome.kind === 'sent' || outcome.kind === 'permanent') {
          ports.metrics.count(outcome.kind === 'sent' ? METRIC.Sent : METRIC.PermanentFailure, dimensionsOf(plan));
          await guarded.put(plan.key, outcome.kind === 'sent' ? 'SENT' : 'FAILED');
          return true;
        }
        ports.metrics.count(outcome.kind === 'ambiguous' ? METRIC.AmbiguousOutcome : METRIC.TransientRetry, dimensionsOf(plan));
        return false; // retried on redelivery, blindly
      });
    },
  };
}
