import { ENV, loadSenderConfig } from '../functions/core/sender-config';
import { loadReclaimerLimits } from '../functions/reclaimer/reclaimer-config';
import { pushEnabled } from './destination-options';
import type { IdempotentNotifierProps } from './notifier-props';
import type { NotifierSettings } from './notifier-settings';
import { laneEnvironment, mergeLaneViolations } from './notifier-lanes';
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
  if (resolved.consent.topicPrefix) environment[ENV.sesTopicPrefix] = resolved.consent.topicPrefix;
  if (props.smsSenderId) environment[ENV.smsSenderId] = props.smsSenderId;
  if (props.smsOriginationNumber) environment[ENV.smsOriginationNumber] = props.smsOriginationNumber;
  if (messageClassesJson) environment[ENV.messageClasses] = messageClassesJson;
  // Always set: `none` when push is off, so a push message is suppressed rather than sent anywhere.
  environment[ENV.pushApplicationArns] = pushEnabled(props) && props.pushPlatformApplications?.length ? props.pushPlatformApplications.join(',') : 'none';
  return environment;
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
};

/**
 * What the handlers would refuse at cold start in the environment these props give (message classes
 * included; the reclaimer also its time budget): synth refuses what they would refuse to run.
 */
export function handlerConfigViolations(props: IdempotentNotifierProps, resolved: NotifierSettings): string[] {
  const urls = { queueUrl: CHECK_TARGETS.queueUrl, deadLetterQueueUrl: CHECK_TARGETS.deadLetterQueueUrl };
  // Each lane's sender with its own variables; the reclaimer with the first lane's.
  const perLane = resolved.lanes.lanes.map((lane, index) => {
    try {
      const environment = laneEnvironment(notifierEnvironment(props, resolved, CHECK_TARGETS), lane, urls);
      const config = loadSenderConfig(environment);
      if (index === 0) loadReclaimerLimits(environment, config);
      return { lane: lane.name, violations: [] };
    } catch (error) {
      return { lane: lane.name, violations: [`the handler would reject this configuration: ${(error as Error).message}`] };
    }
  });
  return mergeLaneViolations(perLane);
}
