import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import type { DeliveryEvidence } from '../../functions/core/policy/message-class';
import type { ProviderRequest } from '../../functions/core/templates/rendered-message';
import { providerLatencyMs } from '../latency/delayed-provider';
import type { DynamoLatencyTally } from '../latency/dynamo-latency';
import type { LatencyDistribution } from '../latency/latency-model';

/** Time a round's requests took beyond what was injected into them. */
export interface Overhead {
  readonly calls: number;
  /** Mean wall time per call beyond the injected latency, ms. */
  readonly meanMs: number;
}

/**
 * Times every DynamoDB request attempt of `client` (inside the SDK's retry loop, around the injected latency of
 * bench/latency/dynamo-latency.ts) and reports what each took beyond its injected draw: dynalite's service and queueing
 * time, the loopback, the response's parsing and the lateness of the injected timer on a busy event loop. What this
 * machine adds to every ledger round trip, measured under the round's own load.
 */
export function timeLedgerAttempts(client: DynamoDBClient, injected: () => DynamoLatencyTally): () => Overhead {
  let attempts = 0;
  let totalMs = 0;
  client.middlewareStack.add(
    (next) => async (args) => {
      const started = performance.now();
      try {
        return await next(args);
      } finally {
        attempts += 1;
        totalMs += performance.now() - started;
      }
    },
    // The same step as the latency middleware (priority low), outside it, inside the retry middleware (priority high).
    { step: 'finalizeRequest', priority: 'normal', name: 'scaleLedgerAttemptTimer' },
  );
  return () => {
    const tally = injected();
    return { calls: attempts, meanMs: attempts === 0 ? 0 : Math.max(0, (totalMs - tally.totalMs) / attempts) };
  };
}

/**
 * A provider timed call by call: its wall time beyond the latency the DelayedProvider drew for that call (the same
 * draw: seed, key and attempt): the outbox write and the injected timer's lateness.
 */
export class TimedProvider implements DeliveryProvider {
  private readonly attempts = new Map<string, number>();
  private calls = 0;
  private beyondMs = 0;

  constructor(
    private readonly inner: DeliveryProvider,
    private readonly latency: LatencyDistribution,
    private readonly seed: number,
  ) {}

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    const attempt = (this.attempts.get(request.key) ?? 0) + 1;
    this.attempts.set(request.key, attempt);
    const started = performance.now();
    const outcome = await this.inner.send(request, signal);
    this.calls += 1;
    this.beyondMs += performance.now() - started - providerLatencyMs(this.latency, this.seed, request.key, attempt);
    return outcome;
  }

  lookup(key: string): Promise<DeliveryEvidence> {
    return this.inner.lookup ? this.inner.lookup(key) : Promise.resolve('none');
  }

  overhead(): Overhead {
    return { calls: this.calls, meanMs: this.calls === 0 ? 0 : Math.max(0, this.beyondMs / this.calls) };
  }
}
