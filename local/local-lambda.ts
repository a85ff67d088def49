import type { SenderConfig } from '../functions/core/sender-config';
import type { LocalAws } from './aws/local-aws';
import { applyEnvironment } from './aws/process-environment';
import { SqsEventSource } from './aws/sqs-event-source';
import type { LambdaWiring } from './lambda-wiring';

/** Variables that could send an SDK client elsewhere than the variables a local run sets. */
export const UNSET_FOR_LOCAL_RUNS = ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS', 'AWS_ENDPOINT_URL'];

/**
 * Sets, for the duration of a local run, the variables the Lambda sender would get from the stack
 * (`lambdaVariables`) plus the ones that point it at the local services: the SDK endpoints, the
 * table, the DLQ and its own queue (with how it redelivers). `overrides` win (a fault proxy's endpoint, say).
 * @returns a function that restores the environment as it was.
 */
export function applyLocalLambdaEnvironment(
  aws: LocalAws,
  tableName: string,
  lambdaVariables: Readonly<Record<string, string>>,
  overrides: Readonly<Record<string, string>> = {},
): () => void {
  return applyEnvironment(
    {
      ...aws.sdkEnvironment,
      ...lambdaVariables,
      LEDGER_TABLE_NAME: tableName,
      DEAD_LETTER_QUEUE_URL: aws.sqs.dlqUrl,
      SOURCE_QUEUE_URL: aws.sqs.queueUrl,
      QUEUE_MAX_RECEIVE_COUNT: String(aws.sqs.redrive.maxReceiveCount),
      QUEUE_VISIBILITY_TIMEOUT_SECONDS: String(aws.sqs.redrive.visibilityTimeoutSeconds),
      QUEUE_RETENTION_SECONDS: String(aws.sqs.redrive.retentionSeconds),
      ...overrides,
    },
    UNSET_FOR_LOCAL_RUNS,
  );
}

/** The Lambda SQS event source over the local queue, invoking the sender as the Lambda wires it. */
export function localEventSource(
  aws: LocalAws,
  wiring: LambdaWiring,
  config: Pick<SenderConfig, 'functionTimeoutMs'>,
  options: { readonly batchSize: number; readonly maximumConcurrency: number },
): SqsEventSource {
  return new SqsEventSource({
    client: aws.sqs.client(),
    queueUrl: aws.sqs.queueUrl,
    queueArn: aws.sqs.queueArn,
    createHandler: (env) => wiring.createHandler(env),
    functionTimeoutMs: config.functionTimeoutMs,
    batchSize: options.batchSize,
    maximumConcurrency: options.maximumConcurrency,
    waitTimeSeconds: 1,
  });
}
