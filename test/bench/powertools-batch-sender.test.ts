import { FullBatchFailureError } from '@aws-lambda-powertools/batch';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATENCY_TIMING } from '../../bench/latency/latency-scenario';
import { powertoolsBatchSender } from '../../bench/latency/powertools-batch-sender';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import { InMemoryDeadLetters } from '../../functions/core/queue/dead-letter-sink';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { silentLog } from '../../functions/core/observability/log-port';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { SendRequest } from '../../functions/core/templates/rendered-message';
import { planMessages } from '../../functions/delivery/message-plan';
import { ExecutionEnvironment } from '../../local/execution-environment';
import { FaultPlan, NO_FAULTS } from '../../local/fault-plan';
import { lambdaContext } from '../../local/lambda-event-source';
import { startLocalDynamo, type LocalDynamo } from '../../local/local-dynamo';
import { LocalQueue } from '../../local/local-queue';
import type { SenderPorts } from '../../local/senders/sender-under-test';
import { generateWorkload } from '../../local/workload';

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => dynamo.stop());

/** Refuses (throttled) the first call of every key in `refuseOnce`; accepts everything else. */
function provider(refuseOnce: ReadonlySet<string>): DeliveryProvider & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async send(request: SendRequest): Promise<DeliveryOutcome> {
      const first = !calls.includes(request.key);
      calls.push(request.key);
      if (first && refuseOnce.has(request.key)) return { kind: 'transient', cause: 'throttled', reason: 'test' };
      return { kind: 'sent', providerMessageId: `pm-${calls.length}` };
    },
  };
}

function portsWith(outbox: DeliveryProvider, runId: string): SenderPorts {
  return {
    plan: new FaultPlan(1, NO_FAULTS, 1),
    outbox,
    client: dynamo.client(),
    adminClient: dynamo.client(),
    metrics: new InMemoryMetrics(),
    deadLetters: new InMemoryDeadLetters(),
    log: silentLog,
    timing: LATENCY_TIMING,
    sendsPerInvocation: 16,
    runId,
  };
}

/** Three distinct events that each plan at least one sendable message. */
function events() {
  const classes = buildMessageClassRegistry();
  const sendableKeys = (body: string) => {
    const event = JSON.parse(body) as Parameters<typeof planMessages>[0];
    return planMessages(event, classes.get(event.messageClass)!, repositoryTemplates()).flatMap((p) => (p.prepared.ok ? [p.key] : []));
  };
  const items = generateWorkload({ messages: 40, duplicateRate: 0, seed: 5 }).items.filter((i) => sendableKeys(i.body).length > 0);
  return items.slice(0, 3).map((i) => ({ body: i.body, keys: sendableKeys(i.body) }));
}

function recordsOf(bodies: readonly string[]): SQSRecord[] {
  const queue = new LocalQueue<undefined>({ visibilityTimeoutMs: 1000, maxReceiveCount: 5 });
  for (const body of bodies) queue.send(body, undefined);
  return queue.receive(10);
}

describe('the Powertools BatchProcessor baseline', () => {
  it('fails only the record with a message not sent, and sends no message twice across records and redeliveries', async () => {
    const [ok, refused] = events();
    const fake = provider(new Set(refused!.keys));
    const sender = powertoolsBatchSender(portsWith(fake, 'partial'));
    await sender.setup();
    const handler = sender.createHandler(new ExecutionEnvironment('t'));

    const first = recordsOf([ok!.body, refused!.body]);
    const response = await handler({ Records: first }, lambdaContext(Date.now() + 10_000));
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: first[1]!.messageId }]);

    // Both come back (the acknowledged one as a producer's duplicate): the sent messages are not sent again.
    const again = await handler({ Records: recordsOf([ok!.body, refused!.body]) }, lambdaContext(Date.now() + 10_000));
    expect(again.batchItemFailures).toEqual([]);
    const callsPerKey = new Map<string, number>();
    for (const key of fake.calls) callsPerKey.set(key, (callsPerKey.get(key) ?? 0) + 1);
    for (const key of ok!.keys) expect(callsPerKey.get(key)).toBe(1);
    for (const key of refused!.keys) expect(callsPerKey.get(key)).toBe(2);
  });

  it('throws when every record of a batch failed, as processPartialResponse does by default', async () => {
    const [, , third] = events();
    const sender = powertoolsBatchSender(portsWith(provider(new Set(third!.keys)), 'full'));
    await sender.setup();
    const handler = sender.createHandler(new ExecutionEnvironment('t'));
    await expect(handler({ Records: recordsOf([third!.body]) }, lambdaContext(Date.now() + 10_000))).rejects.toBeInstanceOf(FullBatchFailureError);
  });

  it('registers the Lambda context, so an in-progress record expires with the invocation', async () => {
    const [ok] = events();
    const ports = portsWith(provider(new Set()), 'context');
    const sender = powertoolsBatchSender(ports);
    await sender.setup();
    const deadline = Date.now() + 10_000;
    await sender.createHandler(new ExecutionEnvironment('t'))({ Records: recordsOf([ok!.body]) }, lambdaContext(deadline));
    const { Items = [] } = await ports.adminClient.send(new ScanCommand({ TableName: 'powertools-batch-context' }));
    expect(Items.length).toBe(ok!.keys.length);
    for (const item of Items) {
      const expiresAt = Number(item.in_progress_expiration?.N);
      expect(expiresAt).toBeGreaterThan(deadline - 1_000);
      // Powertools adds getRemainingTimeInMillis() (read at one Date.now()) to its own later Date.now(): the expiry
      // may pass the deadline by the milliseconds between the two reads (a clean-clone CI run saw 1 ms).
      expect(expiresAt).toBeLessThanOrEqual(deadline + 50);
    }
  });
});
