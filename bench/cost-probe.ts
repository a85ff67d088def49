import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSRecord } from 'aws-lambda';
import { InMemoryDeadLetters } from '../functions/core/dead-letter-sink';
import { silentLog } from '../functions/core/log-port';
import { InMemoryMetrics } from '../functions/core/metrics-recorder';
import { DynamoRequestCounter, totalsBetween, type DynamoRequestTotals } from '../local/dynamo-request-counter';
import { ExecutionEnvironment } from '../local/execution-environment';
import { FaultPlan, NO_FAULTS } from '../local/fault-plan';
import { IndexedOutbox } from '../local/indexed-outbox';
import { lambdaContext } from '../local/lambda-event-source';
import type { LocalDynamo } from '../local/local-dynamo';
import { LocalQueue } from '../local/local-queue';
import { SCALED_TIMING, type SenderName } from '../local/senders/sender-under-test';
import { buildSender } from '../local/simulate';

/** DynamoDB requests one message costs, measured without faults or contention. */
export interface RequestProbe {
  readonly sender: SenderName;
  readonly messages: number;
  /** First delivery of a message. */
  readonly delivered: { readonly requests: number; readonly writes: number; readonly reads: number; readonly capacityUnits: number };
  /** A redelivery that finds the message settled. */
  readonly suppressed: {
    readonly requests: number;
    /** As measured on dynalite, which does not return the item on a failed condition. */
    readonly requestsOnDynalite: number;
    /** On DynamoDB, which returns it (ReturnValuesOnConditionCheckFailure): the follow-up GetItem is not needed. */
    readonly requestsOnAws: number;
  };
  readonly raw: { readonly delivered: DynamoRequestTotals; readonly suppressed: DynamoRequestTotals };
}

/**
 * Sends `messages` one-message events through a sender once, then redelivers each once,
 * counting DynamoDB requests per phase with SDK middleware. Sequential batches: no races.
 */
export async function probeRequests(sender: SenderName, dynamo: LocalDynamo, messages = 200): Promise<RequestProbe> {
  const counter = new DynamoRequestCounter();
  const client = dynamo.client();
  counter.attach(client);
  const under = buildSender(sender, {
    plan: new FaultPlan(0, NO_FAULTS),
    outbox: new IndexedOutbox(join(mkdtempSync(join(tmpdir(), 'notifier-probe-')), 'outbox.jsonl')),
    client,
    adminClient: dynamo.client(),
    metrics: new InMemoryMetrics(),
    deadLetters: new InMemoryDeadLetters(),
    log: silentLog,
    timing: SCALED_TIMING,
    sendsPerInvocation: 1,
    runId: randomUUID().slice(0, 8),
  });
  await under.setup();
  const handler = under.createHandler(new ExecutionEnvironment('probe'));
  const now = new Date().toISOString();
  const bodies = Array.from({ length: messages }, (_, i) =>
    JSON.stringify({
      eventId: `probe-${i}`,
      occurredAt: now,
      type: 'LoginCodeRequested',
      templateId: 'login-code',
      messageClass: 'otp',
      data: { code: String(100_000 + i), expiresInMinutes: 10 },
      recipients: [{ recipientId: `user-${i}`, phone: `+1415555${String(i).padStart(4, '0')}`, channels: ['sms'] }],
    }),
  );
  const pass = async () => {
    const queue = new LocalQueue<undefined>({ visibilityTimeoutMs: 60_000, maxReceiveCount: 5 });
    for (const body of bodies) queue.send(body, undefined);
    const before = counter.snapshot();
    for (let records: SQSRecord[] = queue.receive(10); records.length > 0; records = queue.receive(10)) {
      const response = await handler({ Records: records }, lambdaContext(Date.now() + 30_000));
      if (response.batchItemFailures.length > 0) throw new Error(`probe: ${response.batchItemFailures.length} records failed`);
    }
    return totalsBetween(before, counter.snapshot());
  };
  const delivered = await pass();
  const suppressed = await pass();
  const per = (n: number) => Math.round((n / messages) * 1000) / 1000;
  return {
    sender,
    messages,
    delivered: {
      requests: per(delivered.requests),
      writes: per(delivered.writes),
      reads: per(delivered.reads),
      capacityUnits: per(delivered.capacityUnits),
    },
    suppressed: {
      requests: per(suppressed.requests),
      requestsOnDynalite: per(suppressed.requests),
      requestsOnAws: per(suppressed.requests - suppressed.conditionalFailuresWithoutItem),
    },
    raw: { delivered, suppressed },
  };
}
