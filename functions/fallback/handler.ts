import { LedgerTableClient } from '../adapters/ledger-table-client';
import { DynamoDbSendLedger } from '../adapters/dynamodb-send-ledger';
import { createLedgerTableClient } from '../adapters/ledger-clients';
import { createLambdaObservability } from '../adapters/lambda-observability';
import { newSqsClient } from '../adapters/sqs-client';
import { SqsFallbackQueue } from '../adapters/sqs-fallback-queue';
import { systemClock } from '../core/clock';
import { SERVICE } from '../core/observability/metric-names';
import { createFallbackTrigger } from './create-fallback-trigger';
import { loadFallbackConfig } from './fallback-config';

// Cold start: the classes validated as the sender validates them, the sender's queues, one read of the ledger.
const config = loadFallbackConfig(process.env);
const observability = createLambdaObservability(SERVICE.fallback);

/** The fallback trigger: the ledger stream (rows naming a next channel) in, fallback requests on the sender's queues out. */
export const handler = createFallbackTrigger({
  queue: new SqsFallbackQueue(newSqsClient(), config.queueUrls),
  ledger: new DynamoDbSendLedger(new LedgerTableClient(createLedgerTableClient(), config.tableName)),
  messageClasses: config.messageClasses,
  bulkClasses: config.bulkClasses,
  clock: systemClock,
  ...observability,
});
