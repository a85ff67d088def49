import type { SQSClient } from '@aws-sdk/client-sqs';
import { loadSenderConfig, type SenderConfig } from '../functions/core/sender-config';
import { laneOfMessageClass, type LaneName } from '../functions/core/policy/send-lanes';
import type { LocalAws } from './aws/local-aws';
import type { LocalQueuePair } from './aws/local-sqs';
import { queueIsEmpty } from './aws/queue-inspection';
import { SqsEventSource } from './aws/sqs-event-source';
import { asFunction, runAsFunction } from './aws/calling-function';
import { createLambdaWiring, type LambdaWiring, type LambdaWiringOptions } from './lambda-wiring';
import { localLaneSenders, type LocalLaneSender, type ResolvedLocalStack } from './local-stack';

/** One lane running locally: its queue pair, its sender as its cold start loads it, and the event source invoking it. */
export interface LocalLane extends LocalLaneSender {
  readonly queue: LocalQueuePair;
  readonly config: SenderConfig;
  readonly wiring: LambdaWiring;
  readonly source: SqsEventSource;
}

/** Every lane of a local stack, started. */
export interface LocalLanes {
  /** The urgent (or single) lane first. */
  readonly lanes: readonly LocalLane[];
  /** The lane a queue message is routed into, as the event topic's filter policies route it by `messageClass`. */
  laneOf(body: string): LocalLane;
  /** Whether every lane's queue is empty. */
  allEmpty(sqs: SQSClient): Promise<boolean>;
}

export interface LocalLanesOptions {
  readonly tableName: string;
  /** @default 'notifier-local' */
  readonly configurationSetName?: string;
  /** End User Messaging's configuration set, for a stack that texts through it. @default none (SNS) */
  readonly smsConfigurationSetName?: string;
  /** Logs, metrics and provider wrapping of each lane's sender. */
  readonly wiring: (lane: LaneName | 'single') => LambdaWiringOptions;
  /** Invocations at once per lane, at most (npm start's --concurrency). @default each lane's maximum concurrency in the stack */
  readonly maximumConcurrency?: number;
}

/**
 * Starts each lane of the stack as the stack builds it: its own queue pair (the first lane's is the one
 * `startLocalAws` created; both with the stack's redrive settings), its sender loaded from the environment
 * synth writes for the lane (`localLaneSenders`) and wired as Lambda wires it, and an event source at the
 * lane's maximum concurrency and the stack's batch size. The SDK variables must already point at `aws`.
 */
export async function startLocalLanes(aws: LocalAws, resolved: ResolvedLocalStack, options: LocalLanesOptions): Promise<LocalLanes> {
  const queues: LocalQueuePair[] = [];
  for (const [index, lane] of resolved.lanes.entries()) {
    queues.push(index === 0 ? aws.sqs : await aws.sqs.createQueuePair(`notifier-events-${lane.name}`));
  }
  const senders = localLaneSenders(resolved, {
    tableName: options.tableName,
    configurationSetName: options.configurationSetName,
    smsConfigurationSetName: options.smsConfigurationSetName,
    queues: queues.map((q) => ({ queueUrl: q.queueUrl, deadLetterQueueUrl: q.dlqUrl })),
  });
  const lanes = senders.map((sender, index): LocalLane => {
    const queue = queues[index]!;
    // The lane's cold start: its own variables, validated as the handler validates them.
    const config = loadSenderConfig(sender.environment);
    const wiring = createLambdaWiring(config, options.wiring(sender.name), resolved.queue.visibilityTimeoutSeconds * 1000);
    const source = new SqsEventSource({
      client: aws.sqs.client(),
      queueUrl: queue.queueUrl,
      queueArn: queue.queueArn,
      // Each invocation runs as the lane's function: its AWS requests are told apart from the run's own (test/iam/).
      createHandler: (env) => runAsFunction(`sender:${sender.name}`, () => asFunction(`sender:${sender.name}`, wiring.createHandler(env))),
      functionTimeoutMs: config.functionTimeoutMs,
      batchSize: resolved.settings.batchSize,
      maximumConcurrency: Math.min(sender.maxConcurrency, options.maximumConcurrency ?? sender.maxConcurrency),
      waitTimeSeconds: 1,
    });
    return { ...sender, queue, config, wiring, source };
  });
  const byName = new Map(lanes.map((lane) => [lane.name, lane]));
  return {
    lanes,
    laneOf(body) {
      if (!resolved.settings.lanes.enabled) return lanes[0]!;
      return byName.get(laneOfMessageClass(messageClassOf(body), resolved.bulkClasses)) ?? lanes[0]!;
    },
    async allEmpty(sqs) {
      for (const lane of lanes) if (!(await queueIsEmpty(sqs, lane.queue.queueUrl))) return false;
      return true;
    },
  };
}

/** The `messageClass` a producer wrote, or undefined for a body that is not a JSON object (it goes urgent, and is dead-lettered there). */
function messageClassOf(body: string): unknown {
  try {
    const event: unknown = JSON.parse(body);
    return typeof event === 'object' && event !== null ? (event as { messageClass?: unknown }).messageClass : undefined;
  } catch {
    return undefined;
  }
}
