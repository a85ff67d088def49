import { randomUUID } from 'node:crypto';
import { OutboxProvider } from '../../functions/adapters/outbox-provider';
import type { DestinationPolicy } from '../../functions/core/policy/destination-policy';
import type { DeliveryProvider, DeliveryProviders } from '../../functions/core/provider/delivery-provider';
import { newClaimRow } from '../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { silentLog } from '../../functions/core/observability/log-port';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import type { RenderedMessage } from '../../functions/core/templates/rendered-message';
import { packRequest, type StoredRequest, unpackRequest } from '../../functions/core/ledger/stored-request';
import type { SendLedger } from '../../functions/core/ledger/send-ledger';
import type { SendRateGovernor } from '../../functions/core/policy/send-rate-governor';
import type { StalePendingSource } from '../../functions/core/ledger/stale-pending';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import { createReclaimer, type Reclaimer, type ReclaimerRunSummary } from '../../functions/reclaimer/create-reclaimer';
import type { ReclaimerLimits } from '../../functions/reclaimer/reclaimer-config';
import { planMessages, type MessagePlan } from '../../functions/delivery/message-plan';
import type { ControlledClock } from '../support/controlled-clock';
import { CLAIM_TIMEOUT_MS, RETENTION_MS } from '../support/sender-harness';

export const TIMING = { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RETENTION_MS };

export interface ReclaimerHarnessOptions {
  readonly ledger: SendLedger & StalePendingSource;
  readonly clock: ControlledClock;
  /** The outbox file shared with the sender under test. */
  readonly outboxFile: string;
  /** Drop the outbox's look-up: the provider cannot be asked (SES v2, SNS). @default false */
  readonly withoutLookup?: boolean;
  /** Wraps the provider (fault injection, slowness). @default none */
  readonly wrapProvider?: (provider: DeliveryProvider) => DeliveryProvider;
  readonly limits?: Partial<ReclaimerLimits>;
  /** The reclaimer's share of the send rate, as its Lambda entry wires it. @default none: not paced */
  readonly governor?: SendRateGovernor;
  /** Where it may send. @default every destination allowed */
  readonly destinations?: DestinationPolicy;
  /** PENDING_INDEX_SHARDS: the shards it walks. @default 16 */
  readonly pendingIndexShards?: number;
}

/** A real reclaimer over a real ledger, sending into the same outbox file as the sender. */
export class ReclaimerHarness {
  readonly metrics = new InMemoryMetrics();
  readonly reclaimer: Reclaimer;

  constructor(options: ReclaimerHarnessOptions) {
    const outbox = new OutboxProvider(options.outboxFile, options.clock.now);
    const base: DeliveryProvider = options.withoutLookup ? { send: (r, s) => outbox.send(r, s) } : outbox;
    const provider = options.wrapProvider ? options.wrapProvider(base) : base;
    const providers: DeliveryProviders = { email: provider, sms: provider, push: provider };
    this.reclaimer = createReclaimer({
      ledger: options.ledger,
      pending: options.ledger,
      providers,
      metrics: this.metrics,
      log: process.env.TEST_LOG ? { info: console.log, warn: console.warn, error: console.error } : silentLog,
      clock: options.clock.now,
      newOwnerToken: randomUUID,
      timing: TIMING,
      sendTimeoutMs: 2_000,
      messageClasses: buildMessageClassRegistry(),
      limits: { timeBudgetMs: 20_000, maxRowsPerRun: 500, pageSize: 25, concurrency: 8, ...options.limits },
      ...(options.governor ? { governor: options.governor } : {}),
      ...(options.destinations ? { destinations: options.destinations } : {}),
      ...(options.pendingIndexShards ? { pendingIndexShards: options.pendingIndexShards } : {}),
    });
  }

  run(): Promise<ReclaimerRunSummary> {
    return this.reclaimer.run();
  }
}

/** The plans of an event, as the sender would build them. */
export function plansOf(event: NotificationEvent): MessagePlan[] {
  const messageClass = buildMessageClassRegistry().get(event.messageClass);
  if (!messageClass) throw new Error(`unknown class ${event.messageClass}`);
  return planMessages(event, messageClass, repositoryTemplates());
}

/**
 * The claim row a sender writes for `plan` at `claimedAt` where the reclaimer may have to finish it (in the
 * pending index, its message packed), with a fresh owner token. `layout: 'plain'` writes the message as rows
 * written before packing hold it.
 */
export function deadClaimRow(plan: MessagePlan, claimedAt: number, { layout = 'packed' }: { readonly layout?: 'packed' | 'plain' } = {}): LedgerRow {
  const request = plan.prepared.ok ? storedForm(plan.prepared.request.message, layout) : undefined;
  const subject = { key: plan.key, ...plan.identity, messageClass: plan.messageClass.name, occurredAt: plan.occurredAt };
  return newClaimRow({ subject, ownerToken: randomUUID(), nowMs: claimedAt, timing: TIMING, request });
}

function storedForm(message: RenderedMessage, layout: 'packed' | 'plain'): StoredRequest {
  if (layout === 'plain') return message;
  const packing = packRequest(message);
  if (!packing.ok) throw new Error(packing.reason);
  return packing.packed;
}

/** The message a row keeps, unpacked. */
export function storedMessage(row: LedgerRow): RenderedMessage {
  const unpacked = row.request === undefined ? undefined : unpackRequest(row.request);
  if (!unpacked?.ok) throw new Error(`row ${row.key} keeps no readable message: ${unpacked ? unpacked.reason : 'none'}`);
  return unpacked.message;
}

/**
 * Writes the row a sender writes when it claims a message, and nothing after: the ledger as a
 * worker leaves it when it dies right after its claim. Returns the rows written.
 */
export async function seedDeadClaims(ledger: SendLedger, event: NotificationEvent, claimedAt: number): Promise<LedgerRow[]> {
  const rows: LedgerRow[] = [];
  for (const plan of plansOf(event)) {
    const row = deadClaimRow(plan, claimedAt);
    const result = await ledger.claim(row, claimedAt);
    if (!result.claimed) throw new Error(`seed row ${plan.key} already exists`);
    rows.push(row);
  }
  return rows;
}
