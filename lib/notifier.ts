import { Aspects, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventsTargets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as snsSubscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LEDGER_TABLE } from '../functions/core/ledger-table';
import { smsCountriesDefine } from './destination-options';
import { allowLogsToUse } from './logs-key-policy';
import { NotifierMetrics } from './metrics';
import { NotResourceCheck } from './not-resource-check';
import { type AlarmName, NotifierAlarms } from './notifier-alarms';
import { NotifierDashboard } from './notifier-dashboard';
import { notifierEnvironment } from './notifier-environment';
import { createLedgerTable } from './notifier-ledger-table';
import { defaultMetricsNamespace } from './notifier-metrics-namespace';
import { grantNotifierPermissions } from './notifier-permissions';
import type { IdempotentNotifierProps, ProducerEventRule } from './notifier-props';
import { notifierQueues } from './notifier-queue';
import { createReclaimer } from './notifier-reclaimer';
import { createSender } from './notifier-sender';
import { resolveSettings } from './notifier-settings';
import { DeliveryStatus } from './notifier-status';
import { assertValid } from './notifier-validation';
import { manageSmsSpendLimit } from './sms-spend-limit';

// The construct's configuration types and limits, where a CDK user looks for them (beside the construct).
export type { ExistingQueue, IdempotentNotifierProps, ProducerEventRule } from './notifier-props';
export { MIN_MAX_RECEIVE_COUNT } from './notifier-settings';
export { NotifierConfigurationError } from './notifier-validation';

/**
 * Idempotent notification sender: SQS queue (+ DLQ) -> sender Lambda -> DynamoDB send ledger ->
 * SES v2 / SNS, a scheduled reclaimer for stale claims, a delivery-status Lambda fed by SES
 * configuration-set events (and optionally SNS SMS delivery logs), alarms and a dashboard.
 *
 * Every timing invariant the handler relies on is checked at synth: a bad configuration
 * throws here instead of producing a template.
 */
export class IdempotentNotifier extends Construct {
  /** The queue producers send notification events to. */
  public readonly queue: sqs.IQueue;
  /** The dead-letter queue (exhausted retries and invalid events). */
  public readonly deadLetterQueue: sqs.IQueue;
  /** The send ledger. */
  public readonly table: dynamodb.Table;
  /** The sender function (SQS consumer). */
  public readonly senderFunction: lambda.Function;
  /** The reclaimer function (scheduled). */
  public readonly reclaimerFunction: lambda.Function;
  /** The delivery-status function (SES events, SMS delivery logs -> ledger). */
  public readonly statusFunction: lambda.Function;
  /** Log group of the status function (data-protection policy attached). */
  public readonly statusLogGroup: logs.LogGroup;
  /** The delivery-status wiring: SES event destination and rule, SMS log subscriptions. */
  public readonly deliveryStatus: DeliveryStatus;
  /** The schedule that invokes the reclaimer. */
  public readonly reclaimerRule: events.Rule;
  /** Log group of the sender (data-protection policy attached). */
  public readonly senderLogGroup: logs.LogGroup;
  /** Log group of the reclaimer (data-protection policy attached). */
  public readonly reclaimerLogGroup: logs.LogGroup;
  /** Name of the SES configuration set every e-mail is sent with. */
  public readonly configurationSetName: string;
  /** The SES configuration set (created or imported); add event destinations to it. */
  public readonly configurationSet: ses.IConfigurationSet;
  /** The environment the sender and the reclaimer receive (keys are values of `ENV`); the status function gets only the table name. */
  public readonly environment: Readonly<Record<string, string>>;
  /** Topic the alarms notify. */
  public readonly alarmTopic: sns.ITopic;
  /** Every alarm this notifier has, by name (the SMS alarms only with SMS enabled). */
  public readonly alarms: Readonly<Partial<Record<AlarmName, cloudwatch.Alarm>>>;
  /** The operations dashboard. */
  public readonly dashboard: cloudwatch.Dashboard;
  /** The customer-managed key of the ledger, queues and log groups, when one was given. */
  public readonly encryptionKey?: kms.IKey;
  /** The CloudWatch namespace of this notifier's own metrics (its functions emit there; its alarms read it). */
  public readonly metricsNamespace: string;

  constructor(scope: Construct, id: string, props: IdempotentNotifierProps) {
    super(scope, id);
    this.encryptionKey = props.encryptionKey;
    const settings = resolveSettings(props, { defaultMetricsNamespace: defaultMetricsNamespace(this) });
    // Every failure at once, each with its value: nothing is created from props that cannot work.
    assertValid(props, settings);
    this.metricsNamespace = settings.metricsNamespace;
    const queueKey = props.queueEncryptionKey ?? props.encryptionKey;
    if (props.encryptionKey) allowLogsToUse(props.encryptionKey, Stack.of(this));

    // ---- Queue and producers ----
    const queues = notifierQueues(this, { existingQueue: props.existingQueue, settings, encryptionKey: queueKey });
    this.queue = queues.queue;
    this.deadLetterQueue = queues.deadLetterQueue;
    (props.producerTopicArns ?? []).forEach((arn, i) =>
      this.subscribeToTopic(sns.Topic.fromTopicArn(this, `ProducerTopic${i}`, arn)),
    );
    (props.producerEventRules ?? []).forEach((rule, i) => this.addEventRule(`ProducerRule${i}`, rule));

    // ---- Ledger table ----
    this.table = createLedgerTable(this, {
      deletionProtection: settings.tableDeletionProtection,
      encryptionKey: props.encryptionKey,
    });

    // ---- SES configuration set ----
    this.configurationSet = props.sesConfigurationSetName
      ? ses.ConfigurationSet.fromConfigurationSetName(this, 'ConfigurationSet', props.sesConfigurationSetName)
      : new ses.ConfigurationSet(this, 'ConfigurationSet', {
          reputationMetrics: true,
          tlsPolicy: settings.sesRequireTls ? ses.ConfigurationSetTlsPolicy.REQUIRE : ses.ConfigurationSetTlsPolicy.OPTIONAL,
        });
    this.configurationSetName = this.configurationSet.configurationSetName;

    // ---- Sender and reclaimer ----
    this.environment = notifierEnvironment(props, settings, {
      tableName: this.table.tableName,
      configurationSetName: this.configurationSetName,
      queueUrl: this.queue.queueUrl,
      deadLetterQueueUrl: this.deadLetterQueue.queueUrl,
    });
    // The same for all three functions: FUNCTION_TIMEOUT_SECONDS (and the claim-timeout invariant) describes them all.
    const functionSettings = {
      timeout: settings.functionTimeout,
      memorySize: settings.memorySize,
      logRetention: settings.logRetention,
      logEncryptionKey: props.encryptionKey,
      // The sender and the reclaimer may send an SMS (the reclaimer resends): both carry the country table.
      define: smsCountriesDefine(props),
    };
    const sender = createSender(this, {
      ...functionSettings,
      environment: this.environment,
      entry: settings.entries.sender,
      templatesDir: settings.templatesDir,
      queue: this.queue,
      batchSize: settings.batchSize,
      maxBatchingWindow: props.maxBatchingWindow,
      maxConcurrency: settings.maxConcurrency,
      reservedConcurrentExecutions: settings.senderReservedConcurrency,
    });
    this.senderFunction = sender.fn;
    this.senderLogGroup = sender.logGroup;
    const reclaimer = createReclaimer(this, {
      ...functionSettings,
      environment: this.environment,
      entry: settings.entries.reclaimer,
      schedule: settings.reclaimerSchedule,
    });
    this.reclaimerFunction = reclaimer.fn;
    this.reclaimerLogGroup = reclaimer.logGroup;
    this.reclaimerRule = reclaimer.rule;

    // ---- Delivery status ----
    this.deliveryStatus = new DeliveryStatus(this, 'DeliveryStatus', {
      ...functionSettings,
      table: this.table,
      configurationSet: this.configurationSet,
      addSesEventDestination: settings.sesEventDestination,
      smsDeliveryStatusLogs: settings.smsDeliveryStatusLogs,
      smsSuccessSamplingPercent: props.smsDeliveryStatusSuccessSamplingPercent,
      entry: settings.entries.status,
      metricsNamespace: settings.metricsNamespace,
      reservedConcurrentExecutions: settings.statusReservedConcurrency,
      queueEncryptionKey: queueKey,
    });
    this.statusFunction = this.deliveryStatus.fn;
    this.statusLogGroup = this.deliveryStatus.logGroup;

    // ---- Least-privilege IAM ----
    // cdk-nag's IAM5 does not read NotResource: every such grant in the notifier must be the reviewed one.
    Aspects.of(this).add(new NotResourceCheck());
    grantNotifierPermissions(props, {
      sender: sender.fn,
      reclaimer: reclaimer.fn,
      status: this.statusFunction,
      table: this.table,
      deadLetterQueue: this.deadLetterQueue,
      configurationSetName: this.configurationSetName,
    });

    // ---- SMS spend limit (account level): required and managed whenever SMS is enabled ----
    if (settings.smsEnabled && props.smsMonthlySpendLimitUsd !== undefined) {
      manageSmsSpendLimit(this, props.smsMonthlySpendLimitUsd, this.encryptionKey);
    }

    // ---- Alarms and dashboard ----
    const functions = { sender: sender.fn, reclaimer: reclaimer.fn, status: this.statusFunction };
    const alarms = new NotifierAlarms(this, 'Alarms', {
      topic: props.alarms?.topic,
      emails: props.alarms?.emails,
      metrics: new NotifierMetrics(settings.metricsNamespace, settings.alarms.period),
      settings: settings.alarms,
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      statusFailedEventQueue: this.deliveryStatus.failedEventQueue,
      sesEventRuleDeadLetterQueue: this.deliveryStatus.sesEventRuleDeadLetterQueue,
      functions,
      table: this.table,
      ledgerIndexNames: [LEDGER_TABLE.pendingIndex.name, LEDGER_TABLE.smsMessageIndex.name],
      configurationSetName: this.configurationSetName,
      smsEnabled: settings.smsEnabled,
    });
    this.alarmTopic = alarms.topic;
    this.alarms = alarms.alarms;
    this.dashboard = new NotifierDashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      metrics: new NotifierMetrics(settings.metricsNamespace),
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      functions,
      alarms: Object.values(alarms.alarms).filter((alarm) => alarm !== undefined),
    }).dashboard;
  }

  /** Lets `grantee` send notification events to the queue. */
  public grantSendEvents(grantee: iam.IGrantable): iam.Grant {
    return this.queue.grantSendMessages(grantee);
  }

  /**
   * Subscribes the queue to a producer's SNS topic with raw message delivery
   * (the queue receives the event itself, not an SNS envelope).
   */
  public subscribeToTopic(topic: sns.ITopic): void {
    topic.addSubscription(new snsSubscriptions.SqsSubscription(this.queue, { rawMessageDelivery: true }));
  }

  /**
   * Forwards events matching `rule.eventPattern` to the queue (the handler reads the notification
   * event from the EventBridge event's `detail`).
   */
  public addEventRule(id: string, rule: ProducerEventRule): events.Rule {
    return new events.Rule(this, id, {
      eventBus: rule.eventBusName ? events.EventBus.fromEventBusName(this, `${id}Bus`, rule.eventBusName) : undefined,
      eventPattern: rule.eventPattern,
      targets: [new eventsTargets.SqsQueue(this.queue)],
    });
  }
}
