import type { LogPort } from '../functions/core/observability/log-port';
import { InMemoryMetrics } from '../functions/core/observability/metrics-recorder';
import type { ResolvedLocalStack } from './local-stack';
import { startLocalDynamoStream, type LocalDynamoStream } from './aws/local-dynamo-stream';
import { startLocalOutcomeFeed, type LocalOutcomeFeed } from './outcome-feed';
import { startOutcomeFeedPage, type OutcomeFeedPage } from './outcome-feed-page';

/** `npm start`'s outcome feed: the stream in front of the local DynamoDB, the publisher on it, its page and file. */
export interface RunOutcomeFeed {
  readonly stream: LocalDynamoStream;
  readonly feed: LocalOutcomeFeed;
  readonly page: OutcomeFeedPage;
  /** The JSON-lines file the feed is written to. */
  readonly file: string;
  /** The run's SDK variables this adds: the ledger's writes through the stream, the publisher's calls to the local bus. */
  readonly sdkEnvironment: Readonly<Record<string, string>>;
  /** Publishes what the stream still holds and stops the publisher (every ledger write is done); the page stays. */
  settle(): Promise<void>;
  /** Stops the page and the stream (and the publisher, if {@link settle} was not called). */
  close(): Promise<void>;
}

/**
 * Starts the outcome feed of a local run in front of the local DynamoDB at `dynamoEndpoint`: every writer of the
 * ledger must use {@link RunOutcomeFeed.sdkEnvironment}'s AWS_ENDPOINT_URL_DYNAMODB for its writes to reach the
 * stream, as every write to the table reaches its stream in AWS.
 */
export async function startRunOutcomeFeed(options: {
  readonly dynamoEndpoint: string;
  readonly stack: ResolvedLocalStack;
  readonly file: string;
  readonly log: LogPort;
}): Promise<RunOutcomeFeed> {
  const stream = await startLocalDynamoStream({ target: options.dynamoEndpoint });
  try {
    const feed = await startLocalOutcomeFeed({
      stream,
      metrics: new InMemoryMetrics(),
      log: options.log,
      metricsNamespace: options.stack.settings.metricsNamespace,
      ...(options.stack.settings.lanes.enabled ? { bulkClasses: options.stack.bulkClasses } : {}),
      feedFile: options.file,
    });
    const page = await startOutcomeFeedPage({ events: () => feed.events(), feedFile: options.file });
    let settled: Promise<void> | undefined;
    const settle = () => (settled ??= feed.stop());
    return {
      stream,
      feed,
      page,
      file: options.file,
      sdkEnvironment: { AWS_ENDPOINT_URL_DYNAMODB: stream.endpoint, ...feed.sdkEnvironment },
      settle,
      async close() {
        await settle().catch(() => undefined);
        await page.stop();
        await stream.stop();
      },
    };
  } catch (error) {
    await stream.stop();
    throw error;
  }
}
