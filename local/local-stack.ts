import { ENV, loadSenderConfig, type SenderConfig } from '../functions/core/sender-config';
import type { LaneName } from '../functions/core/policy/send-lanes';
import { laneSenders } from '../lib/notifier-environment';
import type { LaneQueueUrls } from '../lib/notifier-lanes';
import type { IdempotentNotifierProps } from '../lib/notifier-props';
import { resolveSettings, type NotifierSettings } from '../lib/notifier-settings';
import { NotifierConfigurationError, notifierViolations } from '../lib/notifier-validation';

/**
 * A stack as a local tool runs it (`npm start`, `simulate --wire`, the benches, the interleaving model): the
 * props a team would deploy, and the durations the run scales down. Each lane's sender gets the environment
 * synth writes for that lane (lib/notifier-environment.ts, `laneSenders`), with only the resources it points
 * at ({@link TARGET_VARIABLES}) and the scaled durations ({@link SCALED_VARIABLES}) changed.
 */
export interface LocalStack {
  /** Props synth accepts: checked as synth checks them, so a local run never runs what could not be deployed. */
  readonly props: IdempotentNotifierProps;
  /** @default none scaled: synth's durations */
  readonly scaled?: ScaledTiming;
}

/** Durations a local run shortens so that a redelivery takes seconds; each one not given stays synth's. */
export interface ScaledTiming {
  /** @default synth's */
  readonly functionTimeoutSeconds?: number;
  /** @default synth's */
  readonly claimTimeoutSeconds?: number;
  /** @default synth's */
  readonly sendTimeoutMs?: number;
  /** The queues' visibility timeout (synth: 6 x the function timeout). @default synth's */
  readonly visibilityTimeoutSeconds?: number;
  /** Every lane's first backoff step (synth gives the urgent lane a shorter one). @default synth's, per lane */
  readonly throttleBackoffBaseSeconds?: number;
  /** @default synth's */
  readonly throttleBackoffCapSeconds?: number;
}

/** The variable each scaled duration replaces: with {@link TARGET_VARIABLES}, all a local lane may differ in from synth's. */
export const SCALED_VARIABLES = {
  functionTimeoutSeconds: ENV.functionTimeoutSeconds,
  claimTimeoutSeconds: ENV.claimTimeoutSeconds,
  sendTimeoutMs: ENV.sendTimeoutMs,
  visibilityTimeoutSeconds: ENV.queueVisibilityTimeoutSeconds,
  throttleBackoffBaseSeconds: ENV.throttleBackoffBaseSeconds,
  throttleBackoffCapSeconds: ENV.throttleBackoffCapSeconds,
} as const satisfies Record<keyof ScaledTiming, string>;

/** Where a lane's sender points: tokens at synth, local names and URLs here. */
export const TARGET_VARIABLES = [
  ENV.tableName,
  ENV.sesConfigurationSet,
  ENV.sesTenantName,
  ENV.sesBulkTenantName,
  ENV.sesBulkConfigurationSet,
  ENV.smsConfigurationSet,
  ENV.sourceQueueUrl,
  ENV.deadLetterQueueUrl,
  ENV.metricsNamespace,
] as const;

/** The local configuration sets, one per lane as synth creates them. */
export const LOCAL_CONFIGURATION_SETS = { urgent: 'notifier-local', bulk: 'notifier-local-bulk' } as const;

/** The metrics namespace of local runs (synth's is the stack's own). */
const LOCAL_METRICS_NAMESPACE = 'IdempotentNotifier/Local';

/** How the stack's queues redeliver (each lane's the same), scaled: what the local queues are created with. */
export interface LocalQueueSettings {
  readonly maxReceiveCount: number;
  readonly visibilityTimeoutSeconds: number;
  readonly retentionSeconds: number;
}

/** The stack resolved as synth resolves it, before any local resource exists. */
export interface ResolvedLocalStack {
  readonly stack: LocalStack;
  readonly settings: NotifierSettings;
  readonly queue: LocalQueueSettings;
  /** The lanes, urgent (or single) first: each one's name and the event source's maximum concurrency. */
  readonly lanes: readonly { readonly name: LaneName | 'single'; readonly maxConcurrency: number }[];
  /** The classes the event topic routes into the bulk lane (none without lanes). */
  readonly bulkClasses: readonly string[];
}

/** One lane's sender as the local tool runs it. */
export interface LocalLaneSender {
  readonly name: LaneName | 'single';
  /** The event source's maximum concurrency (the stack's, for this lane). */
  readonly maxConcurrency: number;
  /** Synth's environment for this lane, its resources and scaled durations replaced. */
  readonly environment: Readonly<Record<string, string>>;
}

/** Where the lanes' senders point, locally. */
export interface LocalTargets {
  readonly tableName: string;
  /** The urgent (or single) lane's configuration set. @default 'notifier-local' */
  readonly configurationSetName?: string;
  /** Each lane's queue pair, in lane order. */
  readonly queues: readonly LaneQueueUrls[];
  /** End User Messaging's configuration set, for a stack that texts through it. @default none (SNS) */
  readonly smsConfigurationSetName?: string;
}

/**
 * Resolves the props as synth does and refuses what synth refuses.
 * @throws NotifierConfigurationError listing every violation
 */
export function resolveLocalStack(stack: LocalStack): ResolvedLocalStack {
  const settings = resolveSettings(stack.props, { defaultMetricsNamespace: LOCAL_METRICS_NAMESPACE });
  const violations = notifierViolations(stack.props, settings);
  if (violations.length > 0) throw new NotifierConfigurationError(violations);
  return {
    stack,
    settings,
    queue: {
      maxReceiveCount: settings.maxReceiveCount,
      visibilityTimeoutSeconds: stack.scaled?.visibilityTimeoutSeconds ?? settings.visibilityTimeout.toSeconds(),
      retentionSeconds: settings.queueRetention.toSeconds(),
    },
    lanes: settings.lanes.lanes.map((lane) => ({ name: lane.name, maxConcurrency: lane.maxConcurrency })),
    bulkClasses: settings.lanes.bulkClasses,
  };
}

/** Every lane's sender environment: synth's (`laneSenders`), pointed at `targets`, its durations scaled. */
export function localLaneSenders(resolved: ResolvedLocalStack, targets: LocalTargets): LocalLaneSender[] {
  const senders = laneSenders(resolved.stack.props, resolved.settings, {
    tableName: targets.tableName,
    configurationSetName: targets.configurationSetName ?? LOCAL_CONFIGURATION_SETS.urgent,
    queues: targets.queues,
    smsConfigurationSetName: targets.smsConfigurationSetName,
    ...localTenantTargets(resolved),
  });
  const scaled = Object.fromEntries(
    Object.entries(resolved.stack.scaled ?? {}).map(([name, value]) => [SCALED_VARIABLES[name as keyof ScaledTiming], String(value)]),
  );
  return senders.map(({ lane, environment }) => ({ name: lane.name, maxConcurrency: lane.maxConcurrency, environment: { ...environment, ...scaled } }));
}

/**
 * Each lane's sender configuration as its cold start loads it from the environment synth writes for the lane,
 * for a run with no queues of its own (a model, a test): the queues and table are named, never called.
 */
export function laneSenderConfigs(resolved: ResolvedLocalStack): ReadonlyMap<LaneName | 'single', SenderConfig> {
  const senders = localLaneSenders(resolved, {
    tableName: 'notifier-ledger-unused',
    queues: resolved.lanes.map(({ name }) => ({ queueUrl: `https://sqs.invalid/${name}`, deadLetterQueueUrl: `https://sqs.invalid/${name}-dlq` })),
  });
  return new Map(senders.map(({ name, environment }) => [name, loadSenderConfig(environment)]));
}

/**
 * The SES tenants of a local stack, one per lane as synth creates them: a name the props give, else
 * `notifier-local-<lane>`. The local SES accepts sends naming these and no other tenant.
 */
export function localEmailTenants(resolved: ResolvedLocalStack): { readonly lane: LaneName | 'single'; readonly tenantName: string; readonly configurationSetName: string }[] {
  const tenants = resolved.stack.props.sesTenants;
  return resolved.lanes.map(({ name }) => ({
    lane: name,
    tenantName: (name === 'bulk' ? tenants?.bulk?.tenantName : tenants?.urgent?.tenantName) ?? `notifier-local-${name}`,
    configurationSetName: name === 'bulk' ? LOCAL_CONFIGURATION_SETS.bulk : LOCAL_CONFIGURATION_SETS.urgent,
  }));
}

function localTenantTargets(resolved: ResolvedLocalStack): { sesTenantName?: string; sesBulk?: { tenantName: string; configurationSetName: string } } {
  const tenants = localEmailTenants(resolved);
  const urgent = tenants.find((t) => t.lane !== 'bulk');
  const bulk = tenants.find((t) => t.lane === 'bulk');
  return {
    ...(urgent ? { sesTenantName: urgent.tenantName } : {}),
    ...(bulk ? { sesBulk: { tenantName: bulk.tenantName, configurationSetName: bulk.configurationSetName } } : {}),
  };
}
