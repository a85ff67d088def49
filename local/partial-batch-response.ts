import type { SQSBatchResponse } from 'aws-lambda';

/**
 * The record ids a partial batch response (ReportBatchItemFailures) leaves on the queue, or 'invalid' when Lambda
 * treats the whole batch as failed and deletes nothing. As Lambda reads it ("Handling errors for an SQS event source
 * in Lambda", https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html, "Success and failure
 * conditions"): an empty or null `batchItemFailures`, an empty object or a null response is complete success; an
 * empty or null `itemIdentifier`, one under another key name, or one of no record of the batch fails all of it.
 *
 * The one reading both local event sources apply (local/lambda-event-source.ts, local/aws/sqs-event-source.ts).
 *
 * @param response what the handler resolved with, unchecked (a handler may answer anything).
 * @param batchIds the message ids of the batch it was given.
 */
export function failedIds(response: unknown, batchIds: readonly string[]): Set<string> | 'invalid' {
  if (response === null || response === undefined) return new Set();
  if (typeof response !== 'object') return 'invalid';
  const failures = (response as Partial<Record<keyof SQSBatchResponse, unknown>>).batchItemFailures;
  if (failures === null || failures === undefined) return new Set();
  if (!Array.isArray(failures)) return 'invalid';
  const known = new Set(batchIds);
  const failed = new Set<string>();
  for (const failure of failures as unknown[]) {
    const id = typeof failure === 'object' && failure !== null ? (failure as { itemIdentifier?: unknown }).itemIdentifier : undefined;
    if (typeof id !== 'string' || !known.has(id)) return 'invalid';
    failed.add(id);
  }
  return failed;
}
