import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';

/**
 * Whether a failed ledger request can succeed if made again: throttling, a 5xx, a network failure or a timeout,
 * or an error the SDK itself marks retryable (`$retryable`), by the SDK's own classification (smithy's
 * service-error-classification, which its retry strategy uses). Anything else (a ValidationException for an item over
 * 400 KB, an unknown error from our own code) fails the same way every time: keeping it to write again later only
 * blocks what is kept behind it (review defect 2).
 */
export function ledgerRetryCanFix(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const sdkError = error as Parameters<typeof isTransientError>[0];
  return isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError);
}

/**
 * Whether DynamoDB refused the request for what it holds (`ValidationException`: an item over 400 KB, an attribute it
 * cannot store): the same request fails the same way at every receive. Sent again it only loops until the queue's
 * receive limit, so the claim's record is dead-lettered with this reason instead.
 */
export function ledgerRefusesRequest(error: unknown): boolean {
  return error instanceof Error && error.name === 'ValidationException';
}

/** What a log line says of an error no retry can fix: its name and the service's message, short. */
export function ledgerErrorReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 200);
  return `${error.name}: ${error.message}`.slice(0, 200);
}
