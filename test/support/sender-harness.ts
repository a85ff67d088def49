import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { OutboxProvider, readOutbox, type OutboxLine } from '../../functions/adapters/outbox-provider';
import { InMemoryDeadLetters } from '../../functions/core/queue/dead-letter-sink';
import type { ConsentStore } from '../../functions/core/policy/consent';
import type { DeliveryProvider, DeliveryProviders } from '../../functions/core/provider/delivery-provider';
import type { DestinationPolicy } from '../../functions/core/policy/destination-policy';
import type { LimitStore } from '../../functions/core/policy/limit-store';
import { silentLog, type LogPort } from '../../functions/core/observability/log-port';
import { buildMessageClassRegistry, type MessageClassRegistry } from '../../functions/core/policy/message-class';
import type { MessageLimit } from '../../functions/core/policy/message-limits';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { RecordDeferral } from '../../functions/core/queue/record-deferral';
import type { SendLedger } from '../../functions/core/ledger/send-ledger';
import type { SendRateGovernor } from '../../functions/core/policy/send-rate-governor';
import type { TemplateRegistry } from '../../functions/core/templates/templates';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import type { RedeliveryPolicy } from '../../functions/core/ledger/stale-claim-discovery';
import { createSenderHandler, type SenderHandler } from '../../functions/sender/create-sender-handler';
import { ControlledClock } from './controlled-clock';
import { lambdaContext, sqsEvent } from './sqs-event';
import { tempDir } from './temp-dir';

export const CLAIM_TIMEOUT_MS = 120_000;

let outboxFolder: string | undefined;

/** One temp folder per test process for every harness's outbox (a mutation run makes tens of thousands of harnesses). */
function newOutboxFile(): string {
  outboxFolder ??= tempDir('notifier-outbox-');
  return join(outboxFolder, `${randomUUID()}.jsonl`);
}
export const RETENTION_MS = 30 * 86_400_000;

export interface HarnessOptions {
  readonly ledger: SendLedger;
  /** Wraps the outbox provider (fault injection). @default the outbox itself */
  readonly wrapProvider?: (outbox: DeliveryProvider) => DeliveryProvider;
  /** Replaces the providers entirely. @default outbox for every channel */
  readonly providers?: DeliveryProviders;
  readonly clock?: ControlledClock;
  readonly sendTimeoutMs?: number;
  readonly maxBodyBytes?: number;
  /** @default an in-memory list, exposed as `deadLetters` */
  readonly deadLetters?: InMemoryDeadLetters;
  /** @default no pacing */
  readonly governor?: SendRateGovernor;
  /** Pauses before a throttled send is made again in place (the urgent lane's). @default none */
  readonly throttleRetryPausesMs?: readonly number[];
  /** @default none (records keep the queue's visibility timeout) */
  readonly deferral?: RecordDeferral;
  /** Jitter of the visibility backoff. @default Math.random */
  readonly random?: () => number;
  /** How the queue redelivers. @default unknown: every claim enters the pending index */
  readonly redelivery?: RedeliveryPolicy;
  /** @default the sender's default (true) */
  readonly readBeforeClaimOnRedelivery?: boolean;
  /** @default the sender's default (false; the Lambda handler turns it on) */
  readonly waitForLedgerBeforeReturning?: boolean;
  /** Where limits are counted. @default none: limits are not counted */
  readonly limitStore?: LimitStore;
  /** @default every destination allowed */
  readonly destinations?: DestinationPolicy;
  /** MESSAGE_CLASSES, added to the built-in classes. @default only the built-in classes */
  readonly messageClassesJson?: string;
  /** @default the repository's templates */
  readonly templates?: TemplateRegistry;
  /** PENDING_INDEX_SHARDS. @default the sender's default (16) */
  readonly pendingIndexShards?: number;
  /** Where consent is read and recorded. @default none: consent is neither checked nor recorded */
  readonly consent?: ConsentStore;
  /** @default 'UTC' */
  readonly defaultTimeZone?: string;
  /** The longest quiet-hours hold (the sender's `longestHoldSeconds`). @default the sender's default */
  readonly longestHoldSeconds?: number;
  /** REFUSE_UNKNOWN_EVENT_FIELDS. @default false */
  readonly refuseUnknownEventFields?: boolean;
  /** Where the sender's log lines go. @default silent (console with TEST_LOG) */
  readonly log?: LogPort;
}

/** The real sender handler over a real ledger, with an outbox provider and in-memory metrics. */
export class SenderHarness {
  readonly clock: ControlledClock;
  readonly metrics = new InMemoryMetrics();
  readonly deadLetters: InMemoryDeadLetters;
  readonly outboxFile = newOutboxFile();
  readonly handler: SenderHandler;
  readonly messageClasses: MessageClassRegistry;

  constructor(options: HarnessOptions) {
    this.clock = options.clock ?? new ControlledClock();
    this.deadLetters = options.deadLetters ?? new InMemoryDeadLetters();
    this.messageClasses = buildMessageClassRegistry(options.messageClassesJson);
    const outbox = new OutboxProvider(this.outboxFile, this.clock.now);
    const provider = options.wrapProvider ? options.wrapProvider(outbox) : outbox;
    this.handler = createSenderHandler({
      ledger: options.ledger,
      providers: options.providers ?? { email: provider, sms: provider, push: provider },
      deadLetters: this.deadLetters,
      metrics: this.metrics,
      log: options.log ?? (process.env.TEST_LOG ? { info: console.log, warn: console.warn, error: console.error } : silentLog),
      clock: this.clock.now,
      newOwnerToken: randomUUID,
      timing: { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RETENTION_MS },
      sendTimeoutMs: options.sendTimeoutMs ?? 2_000,
      messageClasses: this.messageClasses,
      templates: options.templates ?? repositoryTemplates(),
      maxBodyBytes: options.maxBodyBytes ?? 64 * 1024,
      maxClockSkewMs: 300_000,
      maxConcurrentSends: 16,
      governor: options.governor,
      ...(options.throttleRetryPausesMs ? { throttleRetryPausesMs: options.throttleRetryPausesMs } : {}),
      deferral: options.deferral,
      random: options.random,
      redelivery: options.redelivery,
      readBeforeClaimOnRedelivery: options.readBeforeClaimOnRedelivery,
      waitForLedgerBeforeReturning: options.waitForLedgerBeforeReturning,
      limitStore: options.limitStore,
      destinations: options.destinations,
      pendingIndexShards: options.pendingIndexShards,
      consent: options.consent,
      defaultTimeZone: options.defaultTimeZone,
      ...(options.longestHoldSeconds === undefined ? {} : { longestHoldSeconds: options.longestHoldSeconds }),
      refuseUnknownEventFields: options.refuseUnknownEventFields,
    });
  }

  /** The limits of one of the harness's classes. */
  classLimits(name: string): readonly MessageLimit[] {
    return this.messageClasses.get(name)?.limits ?? [];
  }

  invoke(...records: SQSRecord[]): Promise<SQSBatchResponse> {
    return this.handler(sqsEvent(...records), lambdaContext());
  }

  outbox(): Promise<OutboxLine[]> {
    return readOutbox(this.outboxFile);
  }

  /** Provider calls per key, counted from the outbox file, independently of the ledger. */
  async callsPerKey(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const line of await this.outbox()) counts.set(line.key, (counts.get(line.key) ?? 0) + 1);
    return counts;
  }
}

export function failedIds(response: SQSBatchResponse): string[] {
  return response.batchItemFailures.map((f) => f.itemIdentifier);
}
