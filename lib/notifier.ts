import { Aspects, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventsTargets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as snsSubscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LEDGER_TABLE } from '../functions/core/ledger/ledger-table';
import { laneClassMatcher, type LaneName } from '../functions/core/policy/send-lanes';
import { smsCountriesDefine, smsProviderDefine } from './destination-options';
import { allowLogsToUse } from './logs-key-policy';
import { NotifierMetrics } from './metrics';
import { NotResourceCheck } from './not-resource-check';
import { type AlarmName, NotifierAlarms } from './notifier-alarms';
import { NotifierDashboard, sesTenantViews } from './notifier-dashboard';
import { laneSenders } from './notifier-environment';
import { createLedgerTable } from './notifier-ledger-table';
import { defaultMetricsNamespace } from './notifier-metrics-namespace';
import { createContactList } from './notifier-consent';
import { grantNotifierPermissions } from './notifier-permissions';
import type { IdempotentNotifierProps, ProducerEventRule } from './notifier-props';
import type { ResolvedLanes } from './notifier-lanes';
import { notifierQueues } from './notifier-queue';
import { createReclaimer } from './notifier-reclaimer';
import { createSender } from './notifier-sender';
import { resolveSettings } from './notifier-settings';
import { DeliveryStatus } from './notifier-status';
import { OutcomeEvents } from './notifier-outcomes';
import { ChannelFallback } from './notifier-fallback';
import { assertValid } from './notifier-validation';
import { manageSmsSpendLimit } from './sms-spend-limit';
import { EndUserMessagingSms } from './end-user-messaging-sms';
import { domainOf, emailAddressOf } from './email-from';
import { EmailTenants } from './ses-tenants';

// The construct's configuration types and limits, where a CDK user looks for them (beside the construct).
export type { ExistingQueue, IdempotentNotifierProps, ProducerEventRule } from './notifier-props';
export type { LaneOptions } from './notifier-lanes';

/** One sender lane of a notifier: its queue pair and its sender. */
export interface NotifierLane {
  /** `urgent` or `bulk`; `single` without lanes. */
  readonly name: LaneName | 'single';
  /** The queue its sender consumes (the event topic feeds it, with lanes). */
  readonly queue: sqs.IQueue;
  /** Its dead-letter queue (exhausted retries and invalid events). */
  readonly deadLetterQueue: sqs.IQueue;
  /** Its sender function. */
  readonly senderFunction: lambda.Function;
  /** Log group of its sender (data-protection policy attached). */
  readonly senderLogGroup: logs.LogGroup;
  /** Its sender's environment (keys are values of `ENV`). */
  readonly environment: Readonly<Record<string, string>>;
}
export { MIN_MAX_RECEIVE_COUNT } from './notifier-settings';
export { NotifierConfigurationError } from './notifier-validation';

/**
 * Idempotent notification sender: an event topic routing by message class into an urgent and a bulk lane (each an SQS
 * queue + DLQ and a sender Lambda; one queue with `lanes: false`) -> DynamoDB send ledger -> SES v2 / SNS / End User
 * Messaging, a scheduled reclaimer for stale claims, a delivery-status Lambda fed by SES events through SNS and SQS
 * (and SMS events or delivery logs), outcome events on a bus, alarms and a dashboard. Every timing invariant the
 * handler relies on is checked at synth: a bad configuration throws here instead of producing a template.
 */
export class IdempotentNotifier extends Construct {
  /**
   * The urgent lane's queue (without lanes: the one queue). With lanes, producers publish to `eventTopic`;
   * an event sent here directly is sent in the urgent lane whatever its class.
   */
  public readonly queue: sqs.IQueue;
  /** The urgent lane's dead-letter queue (without lanes: the one dead-letter queue). */
  public readonly deadLetterQueue: sqs.IQueue;
  /** Every sender lane, the urgent (or single) one first. */
  public readonly lanes: readonly NotifierLane[];
  /** With lanes, the entry point: producers publish events to it, routed to a lane by `messageClass`. Undefined without lanes. */
  public readonly eventTopic?: sns.Topic;
  /** The send ledger. */
  public readonly table: dynamodb.Table;
  /** The urgent lane's sender function (without lanes: the one sender). */
  public readonly senderFunction: lambda.Function;
  /** The reclaimer function (scheduled). */
  public readonly reclaimerFunction: lambda.Function;
  /** The delivery-status function (SES events, SMS delivery logs -> ledger). */
  public readonly statusFunction: lambda.Function;
  /** Log group of the status function (data-protection policy attached). */
  public readonly statusLogGroup: logs.LogGroup;
  /** The delivery-status wiring: SES event destination and rule, SMS log subscriptions. */
  public readonly deliveryStatus: DeliveryStatus;
  /** The outcome feed: the ledger's stream, the publisher and the bus producers subscribe to (docs/outcome-events.md). */
  public readonly outcomeEvents: OutcomeEvents;
  /** The bus every message's outcome is put on (created, or `outcomeEventBus`). */
  public readonly outcomeEventBus: events.IEventBus;
  /** End User Messaging SMS's configuration set and events path, when SMS goes through it (`smsProvider`). */
  public readonly endUserMessaging?: EndUserMessagingSms;
  /** The schedule that invokes the reclaimer. */
  public readonly reclaimerRule: events.Rule;
  /** Log group of the urgent lane's sender (data-protection policy attached). */
  public readonly senderLogGroup: logs.LogGroup;
  /** Log group of the reclaimer (data-protection policy attached). */
  public readonly reclaimerLogGroup: logs.LogGroup;
  /** Name of the SES configuration set every e-mail is sent with. */
  public readonly configurationSetName: string;
  /** The SES configuration set (created or imported); add event destinations to it. */
  public readonly configurationSet: ses.IConfigurationSet;
  /** The bulk lane's SES configuration set, when this stack creates the sets (lanes, no `sesConfigurationSetName`). */
  public readonly bulkConfigurationSet?: ses.IConfigurationSet;
  /** The SES tenant of each lane (created, or named with `sesTenants`). */
  public readonly emailTenants: EmailTenants;
  /** The SES contact list bulk e-mail is sent with, when this stack creates it (`contactList.create`). */
  public readonly contactList?: ses.CfnContactList;
  /**
   * The environment of the urgent lane's sender, which the reclaimer also receives (keys are values of `ENV`);
   * each lane's is in `lanes`. The status function gets only the table name.
   */
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
  private readonly resolvedLanes: ResolvedLanes;

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
    this.resolvedLanes = settings.lanes;
    const laneQueues = settings.lanes.lanes.map((lane) => ({
      lane,
      ...notifierQueues(this, { existingQueue: props.existingQueue, settings, encryptionKey: queueKey, idPrefix: lane.idPrefix }),
    }));
    const [firstLane] = laneQueues;
    if (!firstLane) throw new Error('IdempotentNotifier: no sender lane resolved');
    this.queue = firstLane.queue;
    this.deadLetterQueue = firstLane.deadLetterQueue;
    if (settings.lanes.enabled) {
      this.eventTopic = new sns.Topic(this, 'EventTopic', {
        displayName: 'Notification events: routed into the lanes by messageClass',
        enforceSSL: true,
        // SSE with SNS's AWS managed key (producers in this account). Not `encryptionKey`: delivery to queues
        // under that key adds a key-policy statement naming this topic, and the topic under the key closes a cycle.
        masterKey: kms.Alias.fromAliasName(this, 'EventTopicKey', 'alias/aws/sns'),
      });
    }
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
    // The bulk lane's own set: its reputation metrics are the bulk tenant's bounce and complaint rates alone.
    if (settings.lanes.enabled && !props.sesConfigurationSetName) {
      this.bulkConfigurationSet = new ses.ConfigurationSet(this, 'BulkConfigurationSet', {
        reputationMetrics: true,
        tlsPolicy: settings.sesRequireTls ? ses.ConfigurationSetTlsPolicy.REQUIRE : ses.ConfigurationSetTlsPolicy.OPTIONAL,
      });
    }
    const bulkConfigurationSetName = (this.bulkConfigurationSet ?? this.configurationSet).configurationSetName;
    this.emailTenants = new EmailTenants(this, 'EmailTenants', {
      identity: props.sesIdentity ?? domainOf(emailAddressOf(props.emailFrom)) ?? emailAddressOf(props.emailFrom),
      lanes: settings.lanes.lanes.map((lane) => ({
        lane: lane.name,
        configurationSetName: lane.name === 'bulk' ? bulkConfigurationSetName : this.configurationSetName,
        options: lane.name === 'bulk' ? props.sesTenants?.bulk : props.sesTenants?.urgent,
      })),
    });
    if (settings.smsEnabled && settings.smsProvider === 'end-user-messaging') {
      // The events topic keeps a key of its own, never `encryptionKey`: End User Messaging must be allowed to use the
      // topic's key, which an imported key's policy cannot be made to say, and the events queue under that key names
      // the topic in the key's policy, which under the same key closes a cycle.
      this.endUserMessaging = new EndUserMessagingSms(this, 'EndUserMessagingSms', {
        queueEncryptionKey: queueKey,
        protectConfigurationId: props.smsProtectConfigurationId,
        statusTimeout: settings.functionTimeout,
      });
    }
    // The account's one contact list, with a topic per bulk class (lib/notifier-consent.ts).
    this.contactList = createContactList(this, settings.consent);

    // ---- Sender and reclaimer ----
    const senders = laneSenders(props, settings, {
      tableName: this.table.tableName,
      configurationSetName: this.configurationSetName,
      queues: laneQueues.map(({ queue, deadLetterQueue }) => ({ queueUrl: queue.queueUrl, deadLetterQueueUrl: deadLetterQueue.queueUrl })),
      smsConfigurationSetName: this.endUserMessaging?.configurationSetName,
      sesTenantName: this.emailTenants.tenantOf('urgent').tenantName,
      sesBulk: settings.lanes.enabled ? { tenantName: this.emailTenants.tenantOf('bulk').tenantName, configurationSetName: bulkConfigurationSetName } : undefined,
    });
    const functionSettings = {
      timeout: settings.functionTimeout,
      memorySize: settings.memorySize,
      runtime: settings.lambdaRuntime,
      logRetention: settings.logRetention,
      logEncryptionKey: props.encryptionKey,
      define: { ...smsCountriesDefine(props), ...smsProviderDefine(props) },
    };
    this.lanes = laneQueues.map(({ lane, queue, deadLetterQueue }, index) => {
      const environment = senders[index]!.environment;
      const sender = createSender(this, {
        ...functionSettings,
        id: `${lane.idPrefix}Sender`,
        lane: settings.lanes.enabled ? lane.name : undefined,
        environment,
        entry: settings.entries.sender,
        templatesDir: settings.templatesDir,
        queue,
        batchSize: settings.batchSize,
        maxBatchingWindow: props.maxBatchingWindow,
        maxConcurrency: lane.maxConcurrency,
        reservedConcurrentExecutions: lane.name === 'bulk' || !settings.lanes.enabled ? settings.senderReservedConcurrency : undefined,
      });
      return { name: lane.name, queue, deadLetterQueue, senderFunction: sender.fn, senderLogGroup: sender.logGroup, environment };
    });
    const urgent = this.lanes[0]!;
    [this.environment, this.senderFunction, this.senderLogGroup] = [urgent.environment, urgent.senderFunction, urgent.senderLogGroup];
    if (this.eventTopic) {
      for (const lane of this.lanes) this.subscribeLane(this.eventTopic, lane);
    }
    (props.producerTopicArns ?? []).forEach((arn, i) => this.subscribeToTopic(sns.Topic.fromTopicArn(this, `ProducerTopic${i}`, arn)));
    (props.producerEventRules ?? []).forEach((rule, i) => this.addEventRule(`ProducerRule${i}`, rule));
    const reclaimer = createReclaimer(this, {
      ...functionSettings,
      environment: this.environment,
      entry: settings.entries.reclaimer,
      schedule: settings.reclaimerSchedule,
    });
    // A bulk e-mail names the list: none is sent before it exists.
    for (const fn of [...this.lanes.map((lane) => lane.senderFunction), reclaimer.fn]) {
      if (this.contactList) fn.node.addDependency(this.contactList);
      // Every e-mail names a tenant: none is sent before the tenants exist.
      this.emailTenants.sendAfterTenants(fn);
    }
    this.reclaimerFunction = reclaimer.fn;
    this.reclaimerLogGroup = reclaimer.logGroup;
    this.reclaimerRule = reclaimer.rule;

    // ---- Delivery status ----
    this.deliveryStatus = new DeliveryStatus(this, 'DeliveryStatus', {
      ...functionSettings,
      table: this.table,
      configurationSets: [this.configurationSet, ...(this.bulkConfigurationSet ? [this.bulkConfigurationSet] : [])],
      addSesEventDestination: settings.sesEventDestination,
      sesEventBridgeRule: props.sesEventBridgeRule,
      smsDeliveryStatusLogs: settings.smsDeliveryStatusLogs,
      smsSuccessSamplingPercent: props.smsDeliveryStatusSuccessSamplingPercent,
      entry: settings.entries.status,
      metricsNamespace: settings.metricsNamespace,
      reservedConcurrentExecutions: settings.statusReservedConcurrency,
      eventSourceMaxConcurrency: settings.statusMaxConcurrency,
      // Not `encryptionKey` for the SES events topic: a queue under that key names the topic in the key's policy, and the
      // topic under the same key would close a cycle; the topic has a key of its own that SES may use.
      queueEncryptionKey: queueKey,
    });
    this.statusFunction = this.deliveryStatus.fn;
    this.endUserMessaging?.deliverTo(this.statusFunction, { maxConcurrency: settings.statusMaxConcurrency });
    this.statusLogGroup = this.deliveryStatus.logGroup;

    // ---- Outcome events (the ledger's stream -> the bus) ----
    this.outcomeEvents = new OutcomeEvents(this, 'OutcomeEvents', {
      ...functionSettings,
      table: this.table,
      eventBus: props.outcomeEventBus,
      bulkClasses: settings.lanes.enabled ? settings.lanes.bulkClasses : undefined,
      entry: settings.entries.outcomes,
      metricsNamespace: settings.metricsNamespace,
      queueEncryptionKey: queueKey,
    });
    this.outcomeEventBus = this.outcomeEvents.eventBus;
    const fallback = new ChannelFallback(this, 'ChannelFallback', { ...functionSettings, table: this.table, lanes: this.lanes, senderEnvironment: this.environment,
      bulkClasses: settings.lanes.enabled ? settings.lanes.bulkClasses : undefined, entry: settings.entries.fallback, metricsNamespace: settings.metricsNamespace, queueEncryptionKey: queueKey });

    // ---- Least-privilege IAM ----
    // cdk-nag's IAM5 does not read NotResource: every such grant in the notifier must be the reviewed one.
    Aspects.of(this).add(new NotResourceCheck());
    grantNotifierPermissions(props, {
      senders: this.lanes.map((lane) => ({ fn: lane.senderFunction, deadLetterQueue: lane.deadLetterQueue })),
      reclaimer: reclaimer.fn,
      status: this.statusFunction,
      table: this.table,
      configurationSetNames: [this.configurationSetName, ...(this.bulkConfigurationSet ? [this.bulkConfigurationSet.configurationSetName] : [])],
      endUserMessaging: this.endUserMessaging,
    });

    // ---- SMS spend limit (account level): required and managed whenever SMS is enabled ----
    if (settings.smsEnabled && props.smsMonthlySpendLimitUsd !== undefined) {
      const spend = { limitUsd: props.smsMonthlySpendLimitUsd, runtime: settings.lambdaRuntime, logEncryptionKey: this.encryptionKey };
      manageSmsSpendLimit(this, { ...spend, provider: settings.smsProvider });
    }

    // ---- Alarms and dashboard ----
    const functions = { reclaimer: reclaimer.fn, status: this.statusFunction, outcomes: this.outcomeEvents.fn, fallback: fallback.fn };
    const lanes = this.lanes.map(({ name, queue, deadLetterQueue, senderFunction }) => ({ name, queue, deadLetterQueue, sender: senderFunction }));
    const alarms = new NotifierAlarms(this, 'Alarms', {
      topic: props.alarms?.topic,
      emails: props.alarms?.emails,
      metrics: new NotifierMetrics(settings.metricsNamespace, settings.alarms.period),
      settings: settings.alarms,
      lanes,
      eventTopic: this.eventTopic,
      statusFailedEventQueue: this.deliveryStatus.failedEventQueue,
      outcomeFailedBatchQueue: this.outcomeEvents.failedBatchQueue,
      fallbackFailedBatchQueue: fallback.failedBatchQueue,
      sesEventRuleDeadLetterQueue: this.deliveryStatus.sesEventRuleDeadLetterQueue,
      sesEventDeadLetterQueue: this.deliveryStatus.sesEvents.deadLetterQueue,
      functions,
      table: this.table,
      ledgerIndexNames: [LEDGER_TABLE.pendingIndex.name, LEDGER_TABLE.smsMessageIndex.name],
      configurationSetName: this.configurationSetName,
      bulkConfigurationSetName: this.bulkConfigurationSet?.configurationSetName,
      bulkEmailClasses: settings.lanes.enabled ? settings.lanes.bulkClasses : undefined,
      smsEnabled: settings.smsEnabled, smsProvider: settings.smsProvider,
      smsEventDeadLetterQueue: this.endUserMessaging?.deadLetterQueue,
    });
    this.alarmTopic = alarms.topic;
    this.alarms = alarms.alarms;
    this.dashboard = new NotifierDashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      metrics: new NotifierMetrics(settings.metricsNamespace),
      lanes, functions,
      sesTenants: sesTenantViews(settings.lanes, { urgent: this.configurationSetName, bulk: this.bulkConfigurationSet?.configurationSetName }),
      alarms: Object.values(alarms.alarms).filter((alarm) => alarm !== undefined),
    }).dashboard;
  }

  /**
   * Lets `grantee` send notification events: with lanes, publish to `eventTopic` (with its key, when one is
   * given); without, send to the queue.
   */
  public grantSendEvents(grantee: iam.IGrantable): iam.Grant {
    return this.eventTopic ? this.eventTopic.grantPublish(grantee) : this.queue.grantSendMessages(grantee);
  }

  /**
   * Subscribes the notifier to a producer's SNS topic with raw message delivery (the queue receives the
   * event itself, not an SNS envelope): with lanes, each lane's queue with the filter policy of its classes.
   */
  public subscribeToTopic(topic: sns.ITopic): void {
    for (const lane of this.lanes) this.subscribeLane(topic, lane);
  }

  /**
   * Forwards events matching `rule.eventPattern` to the notifier (the handler reads the notification event
   * from the EventBridge event's `detail`): with lanes, one rule per lane (`id`, then `${id}Bulk`), each
   * also matching `detail.messageClass` on its classes. Returns the rules, the urgent (or only) one first.
   */
  public addEventRule(id: string, rule: ProducerEventRule): events.Rule[] {
    const eventBus = rule.eventBusName ? events.EventBus.fromEventBusName(this, `${id}Bus`, rule.eventBusName) : undefined;
    return this.lanes.map((lane) => {
      const matcher = this.laneMatcher(lane.name);
      const detail = (rule.eventPattern.detail ?? {}) as Record<string, unknown>;
      return new events.Rule(this, lane.name === 'bulk' ? `${id}Bulk` : id, {
        eventBus,
        eventPattern: matcher ? { ...rule.eventPattern, detail: { ...detail, messageClass: matcher } } : rule.eventPattern,
        targets: [new eventsTargets.SqsQueue(lane.queue)],
      });
    });
  }

  /** The `messageClass` values routed into `lane` (SNS filter policy or EventBridge pattern), or none without lanes. */
  private laneMatcher(lane: NotifierLane['name']): unknown[] | undefined {
    return lane === 'single' ? undefined : [...laneClassMatcher(lane, this.resolvedLanes.bulkClasses)];
  }

  /** `lane`'s queue subscribed to `topic` with raw delivery, filtered on the body's `messageClass` with lanes. */
  private subscribeLane(topic: sns.ITopic, lane: NotifierLane): void {
    const matcher = this.laneMatcher(lane.name);
    topic.addSubscription(
      new snsSubscriptions.SqsSubscription(lane.queue, {
        rawMessageDelivery: true,
        ...(matcher ? { filterPolicyWithMessageBody: { messageClass: sns.FilterOrPolicy.filter(new sns.SubscriptionFilter(matcher)) } } : {}),
      }),
    );
  }
}
