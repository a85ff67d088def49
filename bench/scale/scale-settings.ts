import type { LatencyPercentiles } from '../../lib/capacity-model/lognormal-latency';
import type { MessageKind } from './scale-workload';

/** One setting of the scale simulation: a lane's settings, the latencies it waits on, its workload. */
export interface ScaleSetting {
  readonly id: string;
  /** What this setting varies against the baseline, for the report. */
  readonly varies: string;
  /** Simulated execution environments at once (the event source's maximum concurrency). */
  readonly concurrency: number;
  readonly batchSize: number;
  readonly maxConcurrentSends: number;
  /** Injected provider round trip (bench/latency/delayed-provider.ts). */
  readonly provider: LatencyPercentiles;
  /** Injected DynamoDB round trip per request attempt (bench/latency/dynamo-latency.ts). */
  readonly ledger: LatencyPercentiles;
  /** The account's send rate the governor splits over `concurrency` shares (sends/s). @default not paced */
  readonly sendRatePerSecond?: number;
  readonly kind: MessageKind;
  /** Producer duplicates queued after the originals, as a share of them. @default 0 */
  readonly duplicateShare?: number;
  /** Whether its throughput is compared with the model (a duplicates mix takes two paths of different lengths). @default true */
  readonly comparesThroughput?: boolean;
}

const TYPICAL_PROVIDER: LatencyPercentiles = { label: 'provider', medianMs: 60, p99Ms: 400 };
const SLOW_PROVIDER: LatencyPercentiles = { label: 'provider', medianMs: 150, p99Ms: 1000 };
const TYPICAL_LEDGER: LatencyPercentiles = { label: 'ledger', medianMs: 5, p99Ms: 25 };
const SLOW_LEDGER: LatencyPercentiles = { label: 'ledger', medianMs: 20, p99Ms: 100 };
const TRANSACTIONAL_EMAIL: MessageKind = { templateId: 'order-shipped', messageClass: 'transactional', channel: 'email' };

/**
 * The baseline is the stack's defaults (batch 10, 16 sends in flight) on two instances at the latency bench's
 * latencies; every other setting moves one or two things. Throughput stays under about 100 messages a second so that
 * this 2-core machine, which runs every simulated instance on one event loop and dynalite beside it, is not the limit.
 */
export const SCALE_SETTINGS: readonly ScaleSetting[] = [
  { id: 'baseline', varies: 'the stack defaults, 2 instances', concurrency: 2, batchSize: 10, maxConcurrentSends: 16, provider: TYPICAL_PROVIDER, ledger: TYPICAL_LEDGER, kind: TRANSACTIONAL_EMAIL },
  { id: 'concurrency-4-slow-provider', varies: 'concurrency 4, provider median 150 ms / p99 1 s', concurrency: 4, batchSize: 10, maxConcurrentSends: 16, provider: SLOW_PROVIDER, ledger: TYPICAL_LEDGER, kind: TRANSACTIONAL_EMAIL },
  { id: 'in-flight-4', varies: '4 sends in flight for a batch of 10 (more messages than slots)', concurrency: 2, batchSize: 10, maxConcurrentSends: 4, provider: TYPICAL_PROVIDER, ledger: TYPICAL_LEDGER, kind: TRANSACTIONAL_EMAIL },
  { id: 'batch-30-in-flight-8', varies: 'batch 30 on 8 sends in flight, 1 instance', concurrency: 1, batchSize: 30, maxConcurrentSends: 8, provider: TYPICAL_PROVIDER, ledger: TYPICAL_LEDGER, kind: TRANSACTIONAL_EMAIL },
  { id: 'batch-5-concurrency-3', varies: 'batch 5, concurrency 3', concurrency: 3, batchSize: 5, maxConcurrentSends: 16, provider: TYPICAL_PROVIDER, ledger: TYPICAL_LEDGER, kind: TRANSACTIONAL_EMAIL },
  { id: 'slow-ledger', varies: 'DynamoDB median 20 ms / p99 100 ms', concurrency: 2, batchSize: 10, maxConcurrentSends: 16, provider: TYPICAL_PROVIDER, ledger: SLOW_LEDGER, kind: TRANSACTIONAL_EMAIL },
  { id: 'rate-24', varies: 'governor at 24 sends/s over 4 instances (6/s each)', concurrency: 4, batchSize: 10, maxConcurrentSends: 16, provider: TYPICAL_PROVIDER, ledger: TYPICAL_LEDGER, sendRatePerSecond: 24, kind: TRANSACTIONAL_EMAIL },
  { id: 'otp-sms', varies: 'otp SMS: 3 limit counters and the SMS index entry', concurrency: 2, batchSize: 10, maxConcurrentSends: 16, provider: TYPICAL_PROVIDER, ledger: TYPICAL_LEDGER, kind: { templateId: 'login-code', messageClass: 'otp', channel: 'sms' } },
  { id: 'otp-email', varies: 'otp e-mail: 2 limit counters', concurrency: 2, batchSize: 10, maxConcurrentSends: 16, provider: TYPICAL_PROVIDER, ledger: TYPICAL_LEDGER, kind: { templateId: 'login-code', messageClass: 'otp', channel: 'email' } },
  { id: 'marketing-push', varies: 'marketing push: 1 limit counter', concurrency: 2, batchSize: 10, maxConcurrentSends: 16, provider: TYPICAL_PROVIDER, ledger: TYPICAL_LEDGER, kind: { templateId: 'weekly-offers', messageClass: 'marketing', channel: 'push' } },
  {
    id: 'producer-duplicates',
    varies: 'half as many producer duplicates again, each after its message settled',
    concurrency: 2,
    batchSize: 10,
    maxConcurrentSends: 16,
    provider: TYPICAL_PROVIDER,
    ledger: TYPICAL_LEDGER,
    kind: TRANSACTIONAL_EMAIL,
    duplicateShare: 0.5,
    comparesThroughput: false,
  },
];
