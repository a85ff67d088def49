import type { DynamoRequestTotals } from '../../local/dynamo-request-counter';
import { quantile, round } from '../../local/stats';
import { PRICES } from '../cost-model';
import type { MeteredInvocation } from './invocation-meter';

/** SQS standard queue, us-east-1: every request, per 64 KB chunk of payload. */
export const SQS_PRICES = { requestPerMillion: 0.4, billedChunkBytes: 64 * 1024, region: 'us-east-1' } as const;

/** Lambda gives a function one vCPU's worth of CPU at 1,769 MB, and a share in proportion below that (AWS Lambda docs, memory). */
export const ONE_VCPU_MB = 1769;

/** DeleteMessageBatch takes at most this many entries. */
const DELETE_BATCH_ENTRIES = 10;

/** What one run of one sender measured, as the bill needs it. */
export interface RunMeasure {
  /** Notification messages the workload asks for (each distinct event's planned messages, once). */
  readonly messages: number;
  /** Queue messages injected, duplicates included. */
  readonly queueMessages: number;
  readonly invocations: readonly MeteredInvocation[];
  /** Invocations Lambda killed at the function timeout: billed in full, nothing acknowledged. */
  readonly timedOutInvocations: number;
  readonly functionTimeoutMs: number;
  readonly memoryMb: number;
  readonly dynamo: DynamoRequestTotals;
  /** ChangeMessageVisibility requests: the sender's own backoff of throttled records (the event source makes none). */
  readonly changeVisibilityRequests: number;
}

/** One run's figures, per message unless named otherwise. */
export interface RunFigures {
  /** Messages over the summed billed duration: one execution environment working batches back to back. */
  readonly messagesPerSecondPerInstance: number;
  readonly queueMessagesPerSecondPerInstance: number;
  readonly invocations: number;
  readonly recordsPerInvocation: number;
  readonly invocationMs: { readonly p50: number; readonly p99: number };
  readonly cpuMsPerInvocation: number;
  readonly gbSecondsPerMillion: number;
  readonly dynamo: { readonly writeUnits: number; readonly readUnits: number; readonly requests: number };
  readonly sqs: { readonly receive: number; readonly delete: number; readonly changeVisibility: number; readonly total: number };
  readonly usdPerMillion: { readonly dynamo: number; readonly lambda: number; readonly sqs: number; readonly total: number };
  /**
   * The same run if its CPU time had run at the memory size's share of a vCPU (this machine's core
   * taken as one vCPU, CPU work taken as serial): a bound on how much CPU could still matter.
   */
  readonly atMemoryCpuShare: { readonly messagesPerSecondPerInstance: number; readonly gbSecondsPerMillion: number };
}

/**
 * Lambda, DynamoDB and SQS bills per message for one run. Billed duration is each invocation's
 * handler time rounded up to the millisecond, times the memory. SQS requests are those of the
 * Lambda event source: one ReceiveMessage per batch (per 64 KB of it) and one DeleteMessageBatch
 * per batch with an acknowledged record; it changes no visibility on a partial batch response,
 * so ChangeMessageVisibility comes only from the sender's own backoff.
 * DynamoDB units follow the main bench: a write request per item up to 1 KB plus the GSI writes,
 * and reads without dynalite's follow-up GetItem after a failed condition (DynamoDB returns the item).
 */
export function billRun(m: RunMeasure): RunFigures {
  const messages = Math.max(1, m.messages);
  const perMillion = (n: number) => (n / messages) * 1_000_000;
  const billedMs = m.invocations.reduce((n, i) => n + Math.ceil(i.durationMs), 0) + m.timedOutInvocations * m.functionTimeoutMs;
  const invocations = m.invocations.length + m.timedOutInvocations;
  const gbSeconds = (billedMs / 1000) * (m.memoryMb / 1024);

  const receives =
    m.invocations.reduce((n, i) => n + Math.max(1, Math.ceil(i.payloadBytes / SQS_PRICES.billedChunkBytes)), 0) + m.timedOutInvocations;
  // A handler that threw has every record counted as failed: nothing to delete.
  const deletes = m.invocations.reduce((n, i) => n + Math.ceil((i.records - i.failedRecords) / DELETE_BATCH_ENTRIES), 0);
  const changeVisibility = m.changeVisibilityRequests;
  const sqsRequests = receives + deletes + changeVisibility;

  const d = m.dynamo;
  const writeUnits = d.writes + d.gsiWriteUnits;
  const readUnits = d.reads - d.conditionalFailuresWithoutItem;
  const requests = d.requests - d.conditionalFailuresWithoutItem;

  const dynamoUsd = (writeUnits / messages) * PRICES.dynamoWriteRequestUnitPerMillion + (readUnits / messages) * PRICES.dynamoReadRequestUnitPerMillion;
  const lambdaUsd = perMillion(gbSeconds) * PRICES.lambdaGbSecondArm64 + (invocations / messages) * PRICES.lambdaRequestPerMillion;
  const sqsUsd = (sqsRequests / messages) * SQS_PRICES.requestPerMillion;
  const seconds = Math.max(1e-9, billedMs / 1000);
  const slowdown = Math.max(0, ONE_VCPU_MB / m.memoryMb - 1);
  const sharedSeconds = seconds + (m.invocations.reduce((n, i) => n + i.cpuMs, 0) * slowdown) / 1000;
  return {
    messagesPerSecondPerInstance: round(m.messages / seconds, 1),
    queueMessagesPerSecondPerInstance: round(m.queueMessages / seconds, 1),
    invocations,
    recordsPerInvocation: round(m.invocations.reduce((n, i) => n + i.records, 0) / Math.max(1, m.invocations.length), 2),
    invocationMs: {
      p50: Math.round(quantile(m.invocations.map((i) => i.durationMs), 0.5)),
      p99: Math.round(quantile(m.invocations.map((i) => i.durationMs), 0.99)),
    },
    cpuMsPerInvocation: round(m.invocations.reduce((n, i) => n + i.cpuMs, 0) / Math.max(1, m.invocations.length), 1),
    gbSecondsPerMillion: Math.round(perMillion(gbSeconds)),
    dynamo: { writeUnits: round(writeUnits / messages, 3), readUnits: round(readUnits / messages, 3), requests: round(requests / messages, 3) },
    sqs: {
      receive: round(receives / messages, 3),
      delete: round(deletes / messages, 3),
      changeVisibility: round(changeVisibility / messages, 3),
      total: round(sqsRequests / messages, 3),
    },
    usdPerMillion: { dynamo: round(dynamoUsd, 2), lambda: round(lambdaUsd, 2), sqs: round(sqsUsd, 2), total: round(dynamoUsd + lambdaUsd + sqsUsd, 2) },
    atMemoryCpuShare: {
      messagesPerSecondPerInstance: round(m.messages / sharedSeconds, 1),
      gbSecondsPerMillion: Math.round(perMillion(sharedSeconds * (m.memoryMb / 1024))),
    },
  };
}
