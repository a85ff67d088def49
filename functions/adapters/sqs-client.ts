import { SQSClient } from '@aws-sdk/client-sqs';
import { ledgerClientConfig } from './ledger-client-config';

/** The SQS client of the dead-letter queue and of visibility backoff (ledger timeouts and retries: both requests are safe to repeat). */
export function newSqsClient(): SQSClient {
  return new SQSClient(ledgerClientConfig());
}
