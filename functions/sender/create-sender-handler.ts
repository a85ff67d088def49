import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import pLimit from 'p-limit';
import { instrumentHandler, type ObservabilityHooks } from '../adapters/lambda-observability';
import { LEDGER_REQUEST_TIMEOUT_MS } from '../adapters/ledger-client-config';
import { RetryLaterError } from '../core/errors';
import { processRecord, type RecordContext } from './process-record';

/** Everything the sender handler needs, injected: real adapters in Lambda, fakes or local servers in tests. */
export interface SenderDependencies extends Omit<RecordContext, 'limit'>, ObservabilityHooks {
  /** Most deliveries in flight at once across a batch. */
  readonly maxConcurrentSends: number;
}

/** Room for the claim and the outcome write, one request timeout each. */
const LEDGER_WRITES_ALLOWANCE_MS = 2 * LEDGER_REQUEST_TIMEOUT_MS;

export type SenderHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * Builds the SQS handler: partial batch responses, records processed concurrently with
 * deliveries bounded by `maxConcurrentSends`. A record is acknowledged only when every
 * one of its messages is terminal or it was dead-lettered with its reason.
 */
export function createSenderHandler(deps: SenderDependencies): SenderHandler {
  const limit = pLimit(deps.maxConcurrentSends);
  // Room for the send itself plus the claim and outcome writes.
  const timeNeededMs = deps.sendTimeoutMs + LEDGER_WRITES_ALLOWANCE_MS;

  const handleRecord = async (record: SQSRecord, ctx: RecordContext) => {
    try {
      return await processRecord(record, ctx);
    } catch (error) {
      if (!(error instanceof RetryLaterError)) {
        deps.log.error('Record processing failed; it will be redelivered', {
          sqsMessageId: record.messageId,
          error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
        });
      }
      throw error;
    }
  };

  const base = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const ctx: RecordContext = {
      ...deps,
      limit: (task) => limit(task),
      hasTimeForDelivery: () => context.getRemainingTimeInMillis() > timeNeededMs,
    };
    // One processor per invocation: it holds the batch's failure list.
    return processPartialResponse(event, (record: SQSRecord) => handleRecord(record, ctx), new BatchProcessor(EventType.SQS), {
      context,
      throwOnFullBatchFailure: false,
    });
  };
  return instrumentHandler(base, deps);
}
