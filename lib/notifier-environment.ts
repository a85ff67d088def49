import { ENV, loadSenderConfig } from '../functions/core/sender-config';
import { loadReclaimerLimits } from '../functions/reclaimer/reclaimer-config';
import { pushEnabled } from './destination-options';
import type { IdempotentNotifierProps } from './notifier-props';
import type { NotifierSettings } from './notifier-settings';
import { laneEnvironment, mergeLaneViolations, type LaneQueueUrls, type ResolvedLane } from './notifier-lanes';
import { sendPaceEnvironment } from './send-pace';

/** The resources the sender and the reclaimer are pointed at (tokens until deploy). */
export interface NotifierEnvironmentTargets {
  /** Name of the ledger table. */
  readonly tableName: string;
  /** Name of the SES configuration set. */
  readonly configurationSetName: string;
  /** URL of the queue the sender consumes (throttled records are backed off on it). */
  readonly queueUrl: string;
  /** URL of its dead-letter queue (invalid events are forwarded there). */
  readonly deadLetterQueueUrl: string;
  /** Name of End User Messaging's configuration set, when SMS goes through it. @default - none (SNS) */
  readonly smsConfigurationSetName?: string;
  /** The urgent (or single) lane's SES tenant. @default - none */
  readonly sesTenantName?: string;
  /** The bulk lane's SES tenant and configuration set. @default - none (no lanes) */
  readonly sesBulk?: { readonly tenantName: string; readonly configurationSetName: string };
}

/**
 * The environment of the sender and the reclaimer: exactly the variables their handlers validate
 * ({@link handlerConfigViolations} checks them with the handlers' own loaders).
 */
export function notifierEnvironment(
  props: IdempotentNotifierProps,
  resolved: NotifierSettings,
  targets: NotifierEnvironmentTargets,
): Readonly<Record<string, string>> {
  const messageClassesJson = props.messageClasses?.length ? JSON.stringify(props.messageClasses) : undefined;
  const environment: Record<string, string> = {
    [ENV.tableName]: targets.tableName,
    [ENV.functionTimeoutSeconds]: String(resolved.functionTimeout.toSeconds()),
    [ENV.claimTimeoutSeconds]: String(resolved.claimTimeout.toSeconds()),
    [ENV.sendTimeoutMs]: String(resolved.sendTimeout.toMilliseconds()),
    [ENV.ledgerRetentionDays]: String(resolved.ledgerRetention.toDays()),
    [ENV.maxClockSkewSeconds]: String(resolved.maxClockSkew.toSeconds()),
    [ENV.deliveryMode]: 'aws',
    [ENV.emailFrom]: props.emailFrom,
    [ENV.sesConfigurationSet]: targets.configurationSetName,
    [ENV.deadLetterQueueUrl]: targets.deadLetterQueueUrl,
    [ENV.maxConcurrentSends]: String(resolved.maxConcurrentSends),
    [ENV.maxBodyBytes]: String(resolved.maxBodyBytes),
    // Only when on: the default leaves every function's environment as it was.
    ...(props.refuseUnknownEventFields ? { [ENV.refuseUnknownEventFields]: 'true' } : {}),
    // The senders index claims in this many shards; the reclaimer, reading the same variable, walks them all.
    [ENV.pendingIndexShards]: String(resolved.pendingIndexShards),
    // Throttled records are backed off with ChangeMessageVisibility on the queue they came from.
    [ENV.sourceQueueUrl]: targets.queueUrl,
    // How the queue redelivers: only a claim it may not bring back again enters the pending index.
    [ENV.queueMaxReceiveCount]: String(resolved.maxReceiveCount),
    [ENV.queueRetentionSeconds]: String(resolved.queueRetention.toSeconds()),
    [ENV.queueVisibilityTimeoutSeconds]: String(resolved.visibilityTimeout.toSeconds()),
    // The account's send rate is split between every sender the event source may run and the reclaimer.
    [ENV.sendRateShares]: String(resolved.sendRateShares),
    // This notifier's own namespace: alarms and the dashboard read nothing else.
    [ENV.metricsNamespace]: resolved.metricsNamespace,
    // The account-wide rates, and the backoff steps synth checked against the queue.
    ...sendPaceEnvironment(props.sendRates, resolved.throttleBackoff),
    // Bulk e-mail names the contact list and its class's topic; quiet hours fall back to this zone.
    [ENV.sesContactListName]: resolved.consent.contactListName,
    [ENV.quietHoursTimeZone]: resolved.consent.quietHoursTimeZone,
  };
  if (targets.sesTenantName) environment[ENV.sesTenantName] = targets.sesTenantName;
  // Every Lambda knows the bulk route: a message's tenant follows its class, whoever sends or resends it.
  if (targets.sesBulk && resolved.lanes.enabled) {
    environment[ENV.sesBulkTenantName] = targets.sesBulk.tenantName;
    environment[ENV.sesBulkConfigurationSet] = targets.sesBulk.configurationSetName;
    environment[ENV.sesBulkClasses] = resolved.lanes.bulkClasses.join(',');
  }
  if (resolved.consent.topicPrefix) environment[ENV.sesTopicPrefix] = resolved.consent.topicPrefix;
  // SQS counts a quiet-hours hold's 12 hours from the receive, the batching window included.
  if (resolved.batchingWindowSeconds > 0) environment[ENV.queueBatchingWindowSeconds] = String(resolved.batchingWindowSeconds);
  if (props.smsSenderId) environment[ENV.smsSenderId] = props.smsSenderId;
  if (props.smsOriginationNumber) environment[ENV.smsOriginationNumber] = props.smsOriginationNumber;
  if (resolved.smsProvider === 'end-user-messaging' && resolved.smsEnabled) {
    environment[ENV.smsProvider] = 'end-user-messaging';
    environment[ENV.smsConfigurationSet] = targets.smsConfigurationSetName ?? CHECK_TARGETS.smsConfigurationSetName!;
    const [identity] = props.smsOriginationIdentities ?? [];
    if (identity) environment[ENV.smsOriginationIdentity] = identity;
    if (props.smsMaxPriceUsd) environment[ENV.smsMaxPrice] = props.smsMaxPriceUsd;
    if (props.smsProtectConfigurationId) environment[ENV.smsProtectConfigurationId] = props.smsProtectConfigurationId;
  }
  if (messageClassesJson) environment[ENV.messageClasses] = messageClassesJson;
  // Always set: `none` when push is off, so a push message is suppressed rather than sent anywhere.
  environment[ENV.pushApplicationArns] = pushEnabled(props) && props.pushPlatformApplications?.length ? props.pushPlatformApplications.join(',') : 'none';
  return environment;
}

/** One lane's sender as synth writes it: the lane, resolved from the props, and its function's environment. */
export interface LaneSender {
  readonly lane: ResolvedLane;
  /** Keys are values of `ENV`. */
  readonly environment: Readonly<Record<string, string>>;
}

/** The resources each lane's sender is pointed at: the table and configuration set, and its own queue pair. */
export interface LaneSenderTargets
  extends Pick<NotifierEnvironmentTargets, 'tableName' | 'configurationSetName' | 'smsConfigurationSetName' | 'sesTenantName' | 'sesBulk'> {
  /** Each lane's queue and dead-letter queue, in the order of `settings.lanes.lanes`. */
  readonly queues: readonly LaneQueueUrls[];
}

/**
 * Every lane's sender environment: the one source of a lane's configuration. Synth writes these on the
 * sender functions (the first lane's also on the reclaimer); the local tools, the benches and the
 * interleaving model run the same (local/local-stack.ts), so what is put under faults is what is deployed.
 */
export function laneSenders(props: IdempotentNotifierProps, settings: NotifierSettings, targets: LaneSenderTargets): LaneSender[] {
  return settings.lanes.lanes.map((lane, index) => {
    const urls = targets.queues[index];
    if (!urls) throw new Error(`no queue pair for the ${lane.name} lane (lane ${index + 1} of ${settings.lanes.lanes.length})`);
    const base = notifierEnvironment(props, settings, { ...targets, queueUrl: urls.queueUrl, deadLetterQueueUrl: urls.deadLetterQueueUrl });
    return { lane, environment: laneEnvironment(base, lane, urls) };
  });
}

/**
 * Stand-ins for the resource names and URLs, which are tokens until deploy: the handlers only check
 * that they are present, so the check below needs no resource to exist yet.
 */
const CHECK_TARGETS: NotifierEnvironmentTargets = {
  tableName: 'notifier-ledger',
  configurationSetName: 'notifier-configuration-set',
  queueUrl: 'https://sqs.invalid/queue',
  deadLetterQueueUrl: 'https://sqs.invalid/dead-letter-queue',
  smsConfigurationSetName: 'notifier-sms-configuration-set',
  sesTenantName: 'notifier-urgent',
  sesBulk: { tenantName: 'notifier-bulk', configurationSetName: 'notifier-bulk-configuration-set' },
};

/**
 * What the handlers would refuse at cold start in the environment these props give (message classes
 * included; the reclaimer also its time budget): synth refuses what they would refuse to run.
 */
export function handlerConfigViolations(props: IdempotentNotifierProps, resolved: NotifierSettings): string[] {
  const urls = { queueUrl: CHECK_TARGETS.queueUrl, deadLetterQueueUrl: CHECK_TARGETS.deadLetterQueueUrl };
  let senders: LaneSender[];
  try {
    senders = laneSenders(props, resolved, { ...CHECK_TARGETS, queues: resolved.lanes.lanes.map(() => urls) });
  } catch (error) {
    // A setting that cannot even be written as a variable (a retention of part days): the other checks name it.
    return [`the handler would reject this configuration: ${(error as Error).message}`];
  }
  // Each lane's sender with its own variables; the reclaimer with the first lane's.
  const perLane = senders.map(({ lane, environment }, index) => {
    try {
      const config = loadSenderConfig(environment);
      if (index === 0) loadReclaimerLimits(environment, config);
      return { lane: lane.name, violations: [] };
    } catch (error) {
      return { lane: lane.name, violations: [`the handler would reject this configuration: ${(error as Error).message}`] };
    }
  });
  return mergeLaneViolations(perLane);
}
