import { LOCAL_REGION, LOOPBACK_CREDENTIALS, startLocalDynamo, type LocalDynamo, type LocalDynamoOptions } from '../local-dynamo';
import { startLocalSes, type LocalSes, type LocalSesOptions } from './local-ses';
import { startLocalSns, type LocalSns, type LocalSnsOptions } from './local-sns-server';
import { startLocalSqs, type LocalSqs, type LocalSqsOptions } from './local-sqs';

/** Options for each local service. */
export interface LocalAwsOptions {
  /** @default in memory, in this process */
  readonly dynamo?: LocalDynamoOptions;
  /** @default queue 'notifier-events', visibility 30 s, maxReceiveCount 5 */
  readonly sqs?: LocalSqsOptions;
  /** @default no limits */
  readonly ses?: LocalSesOptions;
  /** @default no limits */
  readonly sns?: LocalSnsOptions;
}

/** DynamoDB, SQS, SES v2 and SNS on loopback, each on its own free port. */
export interface LocalAws {
  readonly dynamo: LocalDynamo;
  readonly sqs: LocalSqs;
  readonly ses: LocalSes;
  readonly sns: LocalSns;
  /**
   * The SDK's standard variables that send every client built with no explicit endpoint here:
   * AWS_ENDPOINT_URL_{DYNAMODB,SQS,SESV2,SNS} (the SES v2 client reads ..._SESV2, not ..._SES),
   * AWS_REGION and dummy credentials.
   */
  readonly sdkEnvironment: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

/** Starts the four services; if one fails to start, the others are stopped again. */
export async function startLocalAws(options: LocalAwsOptions = {}): Promise<LocalAws> {
  const started: { stop(): Promise<void> }[] = [];
  const track = async <T extends { stop(): Promise<void> }>(starting: Promise<T>): Promise<T> => {
    const service = await starting;
    started.push(service);
    return service;
  };
  try {
    const [dynamo, sqs, ses, sns] = await Promise.all([
      track(startLocalDynamo(options.dynamo)),
      track(startLocalSqs(options.sqs)),
      track(startLocalSes(options.ses)),
      track(startLocalSns(options.sns)),
    ]);
    return {
      dynamo,
      sqs,
      ses,
      sns,
      sdkEnvironment: {
        AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
        AWS_ENDPOINT_URL_SQS: sqs.endpoint,
        AWS_ENDPOINT_URL_SESV2: ses.endpoint,
        AWS_ENDPOINT_URL_SNS: sns.endpoint,
        AWS_REGION: LOCAL_REGION,
        AWS_ACCESS_KEY_ID: LOOPBACK_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOOPBACK_CREDENTIALS.secretAccessKey,
      },
      stop: () => stopAll(started),
    };
  } catch (error) {
    await stopAll(started);
    throw error;
  }
}

async function stopAll(services: readonly { stop(): Promise<void> }[]): Promise<void> {
  await Promise.allSettled(services.map((s) => s.stop()));
}
