import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import { InvalidEventError } from '../../functions/core/errors';
import type { MessageIdentity } from '../../functions/core/event/idempotency-key';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { METRIC } from '../../functions/core/observability/metric-names';
import { parseNotificationBody } from '../../functions/core/event/notification-event';
import type { SendRequest } from '../../functions/core/templates/rendered-message';
import { planMessages, type MessagePlan } from '../../functions/delivery/message-plan';
import { bindToEnvironment, type ExecutionEnvironment } from '../../local/execution-environment';
import { FaultInjectingProvider } from '../../local/fault-injecting-provider';
import { dimensionsOf } from '../../local/senders/baseline-handler';
import { createPowertoolsTable, POWERTOOLS_KEY_PATH } from '../../local/senders/powertools-sender';
import type { SenderPorts, SenderUnderTest } from '../../local/senders/sender-under-test';

/** What the idempotent function stores as its result. */
type SendResult = { readonly state: 'SENT'; readonly providerMessageId: string } | { readonly state: 'FAILED'; readonly reason: string };

/**
 * Powertools idempotency with its batch utility, as the Powertools docs' "Batch integration"
 * section sets it up: `BatchProcessor(EventType.SQS)`, `processPartialResponse(event, handler,
 * processor, { context })`, `makeIdempotent` over a `DynamoDBPersistenceLayer`, and
 * `config.registerLambdaContext(context)` at the top of the handler. Adapted in two places:
 * - the key is the message identity (`[eventId, recipientId, channel, templateId]`), not the SQS
 *   messageId the docs' example uses: a transport id, new for every producer retry of an event;
 * - an event fans out into several messages, each its own side effect, so the idempotent unit is
 *   one message's send rather than the whole record (the docs are silent there), and a record's
 *   messages are sent concurrently, as a careful developer would; the record fails if any failed.
 * Faults are not injected into the persistence layer: the latency scenario runs without faults.
 */
export function powertoolsBatchSender(ports: SenderPorts, tableName = `powertools-batch-${ports.runId}`): SenderUnderTest {
  const messageClasses = buildMessageClassRegistry();
  const templates = repositoryTemplates();
  return {
    name: 'powertools',
    description: '@aws-lambda-powertools/batch BatchProcessor + processPartialResponse, makeIdempotent per message on DynamoDBPersistenceLayer',
    setup: () => createPowertoolsTable(ports.adminClient, tableName),
    createHandler(env: ExecutionEnvironment) {
      // Module scope in a deployed function: one of each per execution environment.
      const processor = new BatchProcessor(EventType.SQS);
      const persistenceStore = bindToEnvironment(new DynamoDBPersistenceLayer({ tableName, awsSdkV3Client: ports.client }), env);
      const config = new IdempotencyConfig({
        eventKeyJmesPath: POWERTOOLS_KEY_PATH,
        expiresAfterSeconds: Math.round(ports.timing.retentionMs / 1000),
      });
      const provider = bindToEnvironment(new FaultInjectingProvider(ports.outbox, ports.plan, env), env);
      const deadLetters = bindToEnvironment(ports.deadLetters, env);

      const sendIdempotently = makeIdempotent(
        async (_identity: MessageIdentity, request: SendRequest, probe: { executed: boolean }): Promise<SendResult> => {
          probe.executed = true;
          // No ledger claim here: every call is the first and only version.
          const outcome = await provider.send({ ...request, claimVersion: 1 }, AbortSignal.timeout(ports.timing.sendTimeoutMs));
          if (outcome.kind === 'sent') return { state: 'SENT', providerMessageId: outcome.providerMessageId };
          if (outcome.kind === 'permanent') return { state: 'FAILED', reason: outcome.reason };
          // Thrown: Powertools deletes the in-progress record and a redelivery sends again.
          throw new Error(`${outcome.kind}: ${outcome.reason}`);
        },
        { persistenceStore, config, dataIndexArgument: 0 },
      );

      const sendOne = async (plan: MessagePlan, request: SendRequest): Promise<void> => {
        const probe = { executed: false };
        const result = await sendIdempotently(plan.identity, request, probe);
        const metric = !probe.executed ? METRIC.DuplicateSuppressed : result.state === 'SENT' ? METRIC.Sent : METRIC.PermanentFailure;
        ports.metrics.count(metric, dimensionsOf(plan));
      };

      const recordHandler = async (record: SQSRecord): Promise<void> => {
        let plans: MessagePlan[];
        try {
          const event = parseNotificationBody(record.body).event;
          const messageClass = messageClasses.get(event.messageClass);
          if (!messageClass) throw new InvalidEventError('UnknownMessageClass', event.messageClass);
          plans = planMessages(event, messageClass, templates);
        } catch (error) {
          if (!(error instanceof InvalidEventError)) throw error;
          await deadLetters.deadLetter({ body: record.body, reason: error.reason, detail: error.detail, sourceMessageId: record.messageId });
          return;
        }
        const results = await Promise.allSettled(plans.flatMap((plan) => (plan.prepared.ok ? [sendOne(plan, plan.prepared.request)] : [])));
        const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed.length > 0) throw new AggregateError(failed.map((f) => f.reason as unknown), `${failed.length} of ${results.length} messages not done`);
      };

      return async (event, context) => {
        config.registerLambdaContext(context);
        return processPartialResponse(event, recordHandler, processor, { context });
      };
    },
  };
}
