import { NodeHttpHandler } from '@smithy/node-http-handler';

/** A ledger or DLQ request that has not answered by then is cut and retried (DynamoDB answers in milliseconds). */
export const LEDGER_REQUEST_TIMEOUT_MS = 1_500;
/** A connection not established by then is cut and retried. */
export const LEDGER_CONNECT_TIMEOUT_MS = 500;
/** SDK attempts per ledger request: safe, because every ledger write recognises its own earlier success. */
export const LEDGER_MAX_ATTEMPTS = 4;

/**
 * Client settings for the ledger (DynamoDB) and the dead-letter queue (SQS). Without a request
 * timeout a stalled call hangs until Lambda kills the whole batch, so no partial batch response
 * is ever returned; with it, the record fails alone and is redelivered.
 */
export function ledgerClientConfig() {
  return {
    maxAttempts: LEDGER_MAX_ATTEMPTS,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: LEDGER_CONNECT_TIMEOUT_MS,
      requestTimeout: LEDGER_REQUEST_TIMEOUT_MS,
      // Without this, an exceeded requestTimeout only logs a warning and the call hangs on.
      throwOnRequestTimeout: true,
    }),
  } as const;
}
