import { setTimeout as sleep } from 'node:timers/promises';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mulberry32 } from '../../local/prng';
import { lognormalMs, type LatencyDistribution } from './latency-model';

/** What the latency middleware did on one client. */
export interface DynamoLatencyTally {
  /** Request attempts delayed (SDK retries included). */
  readonly attempts: number;
  readonly totalMs: number;
}

/**
 * Delays every request attempt `client` sends (and every document client built from it, which
 * shares its middleware stack) by a draw from `latency`, seeded. It sits inside the SDK's retry
 * loop, so each retry waits its own round trip as it would on the network.
 */
export function addDynamoLatency(client: DynamoDBClient, latency: LatencyDistribution, seed: number): () => DynamoLatencyTally {
  const random = mulberry32(seed);
  let attempts = 0;
  let totalMs = 0;
  client.middlewareStack.add(
    (next) => async (args) => {
      const ms = lognormalMs(latency, random(), random());
      attempts += 1;
      totalMs += ms;
      await sleep(ms);
      return next(args);
    },
    // After the retry middleware (priority high in the same step), so inside its loop.
    { step: 'finalizeRequest', priority: 'low', name: 'benchDynamoLatency' },
  );
  return () => ({ attempts, totalMs });
}
