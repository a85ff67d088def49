import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { InMemoryDeadLetters } from '../functions/core/queue/dead-letter-sink';
import { silentLog } from '../functions/core/observability/log-port';
import { InMemoryMetrics } from '../functions/core/observability/metrics-recorder';
import { DynamoRequestCounter, totalsBetween, type DynamoRequestTotals } from '../local/dynamo-request-counter';
import { simulationTableIndexes } from '../local/senders/this-sender';
import { ExecutionEnvironment } from '../local/execution-environment';
import { FaultPlan, NO_FAULTS } from '../local/fault-plan';
import { IndexedOutbox } from '../local/indexed-outbox';
import { lambdaContext } from '../local/lambda-event-source';
import type { LocalDynamo } from '../local/local-dynamo';
import type { TemplateRegistry } from '../functions/core/templates/templates';
import { LocalQueue } from '../local/local-queue';
import { SCALED_TIMING, type SenderName } from '../local/senders/sender-under-test';
import { buildSender } from '../local/simulate';

/** DynamoDB requests one message costs, measured without faults or contention. */
export interface RequestProbe {
  readonly sender: SenderName;
  readonly messages: number;
  /** First delivery of a message. */
  readonly delivered: {
    readonly requests: number;
    readonly writes: number;
    readonly reads: number;
    readonly capacityUnits: number;
    /** Index write units per delivered e-mail (see local/gsi-write-model.ts). */
    readonly gsiWriteUnits: number;
  };
  /** A redelivery that finds the message settled. */
  readonly suppressed: {
    readonly requests: number;
    /** As measured on dynalite, which does not return the item on a failed condition. */
    readonly requestsOnDynalite: number;
    /** On DynamoDB, which returns it (ReturnValuesOnConditionCheckFailure): the follow-up GetItem is not needed. */
    readonly requestsOnAws: number;
  };
  /** The same messages once more as SQS redeliveries (receive count 2): settled rows, read or claimed. */
  readonly redelivered: { readonly requestsOnAws: number; readonly writes: number; readonly reads: number };
  readonly raw: { readonly delivered: DynamoRequestTotals; readonly suppressed: DynamoRequestTotals; readonly redelivered: DynamoRequestTotals };
}

/** As the stack's default queue: the probe's first receives are far from the dead-letter queue. */
export const PROBE_MAX_RECEIVE_COUNT = 100;
const PROBE_VISIBILITY_MS = 60_000;

/** A sender on its own table, its DynamoDB requests counted, and a way to deliver bodies through it. */
export interface CountedSender {
  /** The client the sender's requests go through, counted. */
  readonly client: DynamoDBClient;
  /**
   * Every body once, in batches of 10, all acknowledged (else it throws); `receiveCount` 1 is a fresh message
   * (a producer's duplicate), above 1 an SQS redelivery. The requests the pass made.
   */
  pass(bodies: readonly string[], receiveCount?: number): Promise<DynamoRequestTotals>;
}

/** What a probe may change about the sender. */
export interface CountedSenderOptions {
  readonly readBeforeClaimOnRedelivery?: boolean;
  /** @default the repository's templates */
  readonly templates?: TemplateRegistry;
}

/** The redelivery policy the probed senders are told. */
export const PROBE_REDELIVERY = { maxReceiveCount: PROBE_MAX_RECEIVE_COUNT, retentionMs: 4 * 86_400_000, longestRedeliveryGapMs: PROBE_VISIBILITY_MS };

/** Builds `sender` on `dynamo` without faults or contention, its requests counted with SDK middleware. */
export async function countedSender(sender: SenderName, dynamo: LocalDynamo, options: CountedSenderOptions = {}): Promise<CountedSender> {
  const counter = new DynamoRequestCounter(simulationTableIndexes);
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
    redelivery: PROBE_REDELIVERY,
    readBeforeClaimOnRedelivery: options.readBeforeClaimOnRedelivery,
    templates: options.templates,
  });
  await under.setup();
  const handler = under.createHandler(new ExecutionEnvironment('probe'));
  return {
    client,
    async pass(bodies, receiveCount = 1) {
      const queue = new LocalQueue<undefined>({ visibilityTimeoutMs: PROBE_VISIBILITY_MS, maxReceiveCount: PROBE_MAX_RECEIVE_COUNT });
      for (const body of bodies) queue.send(body, undefined);
      const before = counter.snapshot();
      for (let records: SQSRecord[] = queue.receive(10); records.length > 0; records = queue.receive(10)) {
        const received = records.map((r) => ({ ...r, attributes: { ...r.attributes, ApproximateReceiveCount: String(receiveCount) } }));
        const response = await handler({ Records: received }, lambdaContext(Date.now() + 30_000));
        if (response.batchItemFailures.length > 0) throw new Error(`probe: ${response.batchItemFailures.length} records failed`);
      }
      return totalsBetween(before, counter.snapshot());
    },
  };
}

/**
 * Sends `messages` one-message e-mail events through a sender once, then redelivers each once,
 * counting DynamoDB requests per phase with SDK middleware. Sequential batches: no races.
 */
export async function probeRequests(
  sender: SenderName,
  dynamo: LocalDynamo,
  messages = 200,
  options: { readonly readBeforeClaimOnRedelivery?: boolean } = {},
): Promise<RequestProbe> {
  const { pass: passOf } = await countedSender(sender, dynamo, options);
  const now = new Date().toISOString();
  const bodies = Array.from({ length: messages }, (_, i) =>
    JSON.stringify({
      eventId: `probe-${i}`,
      occurredAt: now,
      type: 'LoginCodeRequested',
      templateId: 'login-code',
      messageClass: 'otp',
      data: { code: String(100_000 + i), expiresInMinutes: 10 },
      recipients: [{ recipientId: `user-${i}`, email: `user-${i}@example.com`, channels: ['email'] }],
    }),
  );
  const pass = (receiveCount = 1) => passOf(bodies, receiveCount);
  const delivered = await pass();
  const suppressed = await pass();
  const redelivered = await pass(2);
  const per = (n: number) => Math.round((n / messages) * 1000) / 1000;
  return {
    sender,
    messages,
    delivered: {
      requests: per(delivered.requests),
      writes: per(delivered.writes),
      reads: per(delivered.reads),
      capacityUnits: per(delivered.capacityUnits),
      gsiWriteUnits: per(delivered.gsiWriteUnits),
    },
    suppressed: {
      requests: per(suppressed.requests),
      requestsOnDynalite: per(suppressed.requests),
      requestsOnAws: per(suppressed.requests - suppressed.conditionalFailuresWithoutItem),
    },
    redelivered: {
      requestsOnAws: per(redelivered.requests - redelivered.conditionalFailuresWithoutItem),
      writes: per(redelivered.writes),
      reads: per(redelivered.reads - redelivered.conditionalFailuresWithoutItem),
    },
    raw: { delivered, suppressed, redelivered },
  };
}
