import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { idempotencyKey, type MessageIdentity } from '../../functions/core/event/idempotency-key';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { SendRequest } from '../../functions/core/templates/rendered-message';
import { bindToEnvironment, type ExecutionEnvironment } from '../execution-environment';
import { throttlingError } from '../fault-injecting-ledger';
import { FaultInjectingProvider } from '../fault-injecting-provider';
import type { FaultPlan } from '../fault-plan';
import { baselineHandler, dimensionsOf } from './baseline-handler';
import type { SenderPorts, SenderUnderTest } from './sender-under-test';

/** The four key fields, as Powertools selects them from the payload. */
export const POWERTOOLS_KEY_PATH = '[eventId, recipientId, channel, templateId]';

type Persistence = DynamoDBPersistenceLayer;

/**
 * Faults at the Powertools persistence layer's steps, the same kinds at the same points as the
 * real sender's ledger: `saveInProgress` is the claim, `saveSuccess` the outcome write.
 */
function withFaults(store: Persistence, plan: FaultPlan, env: ExecutionEnvironment): Persistence {
  const keyOf = (payload: unknown) => idempotencyKey(payload as MessageIdentity);
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      switch (prop) {
        case 'saveInProgress':
          return async (payload: unknown, remainingMs?: number) => {
            const key = keyOf(payload);
            if (plan.roll('dynamoThrottle', key, 'claim')) throw throttlingError();
            if (plan.roll('crashBeforeClaim', key)) return env.crash();
            await method(payload, remainingMs);
            if (plan.roll('crashAfterClaim', key)) return env.crash();
          };
        case 'saveSuccess':
          return async (payload: unknown, result: unknown) => {
            const key = keyOf(payload);
            if (plan.roll('dynamoThrottle', key, 'complete')) {
              if ((result as { state?: string } | undefined)?.state === 'SENT') plan.noteUnrecordedReach(key);
              throw throttlingError();
            }
            await method(payload, result);
            if (plan.roll('crashAfterOutcome', key)) return env.crash();
          };
        case 'getRecord':
        case 'deleteRecord':
          return async (payload: unknown) => {
            if (plan.roll('dynamoThrottle', keyOf(payload), String(prop))) throw throttlingError();
            return method(payload);
          };
        default:
          return method;
      }
    },
  });
}

/**
 * The common alternative: the same provider call wrapped with `makeIdempotent` and Powertools'
 * DynamoDB persistence layer on its own table, keyed on the same four fields. A non-`sent`,
 * non-`permanent` outcome throws, so Powertools deletes the record and a redelivery sends again.
 */
/** The table Powertools' DynamoDBPersistenceLayer expects: on-demand, keyed by `id`. */
export async function createPowertoolsTable(client: DynamoDBClient, tableName: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    }),
  );
}

export function powertoolsSender(ports: SenderPorts, tableName = `powertools-${ports.runId}`): SenderUnderTest {
  return {
    name: 'powertools',
    description: '@aws-lambda-powertools/idempotency makeIdempotent + DynamoDBPersistenceLayer around the provider call',
    setup: () => createPowertoolsTable(ports.adminClient, tableName),
    createHandler(env) {
      const persistence = bindToEnvironment(
        withFaults(new DynamoDBPersistenceLayer({ tableName, awsSdkV3Client: ports.client }), ports.plan, env),
        env,
      );
      const provider = bindToEnvironment(new FaultInjectingProvider(ports.outbox, ports.plan, env), env);
      const config = new IdempotencyConfig({
        eventKeyJmesPath: POWERTOOLS_KEY_PATH,
        expiresAfterSeconds: Math.round(ports.timing.retentionMs / 1000),
      });
      const send = makeIdempotent(
        async (_identity: MessageIdentity, request: SendRequest, probe: { executed: boolean }) => {
          probe.executed = true;
          // No ledger claim here: every call is the first and only version.
          const outcome = await provider.send({ ...request, claimVersion: 1 }, AbortSignal.timeout(ports.timing.sendTimeoutMs));
          if (outcome.kind === 'sent') return { state: 'SENT', providerMessageId: outcome.providerMessageId };
          if (outcome.kind === 'permanent') return { state: 'FAILED', reason: outcome.reason };
          throw new Error(`${outcome.kind}: ${outcome.reason}`);
        },
        { persistenceStore: persistence, config, dataIndexArgument: 0 },
      );
      return baselineHandler(
        ports,
        bindToEnvironment(ports.deadLetters, env),
        async (plan) => {
          if (!plan.prepared.ok) return true;
          const probe = { executed: false };
          try {
            const result = (await send(plan.identity, plan.prepared.request, probe)) as { state: string };
            const metric = !probe.executed ? METRIC.DuplicateSuppressed : result.state === 'SENT' ? METRIC.Sent : METRIC.PermanentFailure;
            ports.metrics.count(metric, dimensionsOf(plan));
            return true;
          } catch (error) {
            const name = (error as Error).name;
            if (name === 'IdempotencyAlreadyInProgressError') ports.metrics.count(METRIC.ConcurrentClaimBackoff, dimensionsOf(plan));
            else if (/ambiguous/.test((error as Error).message)) ports.metrics.count(METRIC.AmbiguousOutcome, dimensionsOf(plan));
            return false;
          }
        },
        // Powertools' documented setup: in-progress records expire with the invocation.
        (context) => config.registerLambdaContext(context),
      );
    },
  };
}
