import type { LedgerRow } from '../functions/core/ledger/ledger-record';
import type { LogPort } from '../functions/core/observability/log-port';
import type { MetricsRecorder } from '../functions/core/observability/metrics-recorder';
import { DEFAULT_FALLBACK_POLICY, type MessageClassRegistry } from '../functions/core/policy/message-class';
import { ENV } from '../functions/core/sender-config';
import type { FallbackTrigger } from '../functions/fallback/create-fallback-trigger';
import type { LocalDynamoStream } from './aws/local-dynamo-stream';
import type { WireVerdict } from './aws/wire-verdict';
import { attachLocalFallbackTrigger } from './local-fallback-trigger';
import type { LocalLane } from './local-lanes';
import type { ResolvedLocalStack } from './local-stack';
import { judgeWireFallbacks, type WireFallbackReport } from './wire-fallback-report';

/** Channel fallback in a wire run: the trigger on the run's stream, the run's end condition, and its judgement. */
export interface WireFallback {
  /** `settled` (the queues empty) asked when the trigger has read every write, and asked again after a second read. */
  doneWhen(ready: () => boolean, settled: () => Promise<boolean>): () => Promise<boolean>;
  /** Reads what the stream still holds. */
  drain(): Promise<void>;
  /** Stops polling after reading everything. */
  stop(): Promise<void>;
  judge(input: {
    readonly rows: ReadonlyMap<string, LedgerRow>;
    readonly acceptedPerKey: ReadonlyMap<string, number>;
    readonly messageClasses: MessageClassRegistry;
    /** The wire verdict on some keys (the same explanations as every other message's). */
    readonly verdictOf: (keys: readonly string[]) => WireVerdict;
  }): WireFallbackReport;
}

/**
 * Attaches the fallback trigger to a wire run's stream as the stack deploys it (local/local-fallback-trigger.ts): its
 * reads of the ledger pass the run's fault proxy (the run's SDK variables), its requests go to the lanes' queues.
 */
export function attachWireFallback(options: {
  readonly stream: LocalDynamoStream;
  readonly tableName: string;
  readonly lanes: readonly LocalLane[];
  readonly stack: ResolvedLocalStack;
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  /** @default the trigger as is */
  readonly wrapTrigger?: (trigger: FallbackTrigger) => FallbackTrigger;
}): WireFallback {
  const { consumer } = attachLocalFallbackTrigger({
    stream: options.stream,
    tableName: options.tableName,
    lanes: options.lanes.map((lane) => ({ name: lane.name, queueUrl: lane.queue.queueUrl })),
    messageClassesJson: options.lanes[0]?.environment[ENV.messageClasses],
    ...(options.stack.settings.lanes.enabled ? { bulkClasses: options.stack.bulkClasses } : {}),
    metrics: options.metrics,
    log: options.log,
    ...(options.wrapTrigger ? { wrapTrigger: options.wrapTrigger } : {}),
  });
  return {
    // A send that ended between the two reads left a write whose request would land on a queue already judged empty.
    doneWhen: (ready, settled) => async () => {
      if (!ready()) return false;
      await consumer.drain();
      if (!(await settled())) return false;
      await consumer.drain();
      return settled();
    },
    drain: () => consumer.drain(),
    stop: () => consumer.stop(),
    judge: ({ rows, acceptedPerKey, messageClasses, verdictOf }) =>
      judgeWireFallbacks({
        rows,
        acceptedPerKey,
        // As the trigger reads a class (functions/fallback/fallback-of-record.ts).
        policyOf: (name) => messageClasses.get(name)?.fallback ?? DEFAULT_FALLBACK_POLICY,
        nowMs: Date.now(),
        duplicatesOf: (keys) => {
          const v = verdictOf(keys);
          return { unexplained: v.unexplainedDuplicates, explained: v.explainedDuplicates, examples: v.examples.duplicate };
        },
      }),
  };
}
