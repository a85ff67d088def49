import { ArnFormat, Aws, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventsTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as snsSubscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { LEDGER_TABLE } from '../functions/core/ledger-table';
import type { MessageClass } from '../functions/core/message-class';
import { ENV, loadSenderConfig } from '../functions/core/sender-config';
import { timingViolations } from '../functions/core/timing-invariants';
import type { BackoffSettings } from '../functions/core/visibility-backoff';
import { loadReclaimerLimits } from '../functions/reclaimer/reclaimer-config';
import { backlogLossHorizonSeconds, defaultBacklogAgeAlarmSeconds } from './backlog-age';
import { alarmOptionViolations, type AlarmName, NotifierAlarms, type NotifierAlarmOptions } from './notifier-alarms';
import { NotifierDashboard } from './notifier-dashboard';
import { DeliveryStatus } from './notifier-status';
import { AccountSdkCall } from './account-settings';
import { domainOf, emailAddressOf, emailFromViolations } from './email-from';
import { createNotifierFunction, DEFAULT_ENTRIES } from './notifier-function';
import { resolveThrottleBackoff, sendPaceEnvironment, sendPaceViolations, type SendRates, type ThrottleBackoff } from './send-pace';

/** Smallest allowed `maxReceiveCount`: fewer receives let throttled deliveries reach the DLQ unprocessed. */
export const MIN_MAX_RECEIVE_COUNT = 5;

/**
 * A queue created outside the construct (for example shared with other consumers).
 * Its settings must be declared so the timing invariants can still be checked at synth.
 */
export interface ExistingQueue {
  /** The queue the sender consumes. */
  readonly queue: sqs.IQueue;
  /** Its dead-letter queue; the sender also moves invalid events there, with their reason. */
  readonly deadLetterQueue: sqs.IQueue;
  /** The queue's visibility timeout (must be at least 6 x the sender function timeout). */
  readonly visibilityTimeout: Duration;
  /** The queue's message retention period. */
  readonly retentionPeriod: Duration;
  /** The dead-letter queue's message retention period. */
  readonly deadLetterRetentionPeriod: Duration;
  /** The redrive policy's maxReceiveCount (at least 5). */
  readonly maxReceiveCount: number;
}

/** An EventBridge rule that forwards producer events to the notifier queue. */
export interface ProducerEventRule {
  /**
   * Name of the event bus the rule listens on.
   * @default - the account's default event bus
   */
  readonly eventBusName?: string;
  /** Which events to forward, e.g. `{ source: ['shop.orders'], detailType: ['NotificationRequested'] }`. */
  readonly eventPattern: events.EventPattern;
}

/** Configuration of {@link IdempotentNotifier}. */
export interface IdempotentNotifierProps {
  // ---- E-mail (SES v2) ----
  /**
   * The From address of every e-mail, e.g. `notifications@mail.yourcompany.com` or
   * `Your Company <notifications@mail.yourcompany.com>`. Its address or its domain must be a verified SES identity.
   * Synth fails on a reserved domain (`example.com/.net/.org`, `.test`, `.invalid`, `.localhost`, `.example`):
   * SES would reject every e-mail.
   */
  readonly emailFrom: string;
  /**
   * SES identity the sender may send as (`ses:SendEmail` is granted on it only).
   * @default - both the From address and its domain (whichever of them is verified is used by SES)
   */
  readonly sesIdentity?: string;
  /**
   * Name of an existing SES configuration set every e-mail is sent with. The delivery-event destination
   * is added to it unless `sesEventDestination` is false.
   * @default - a configuration set is created (reputation metrics on)
   */
  readonly sesConfigurationSetName?: string;

  // ---- SMS (SNS) ----
  /**
   * Allow SMS: `sns:Publish` to phone numbers (never to topics).
   * @default true
   */
  readonly smsEnabled?: boolean;
  /**
   * Alphanumeric sender ID for SMS (only honoured in some countries).
   * @default - none
   */
  readonly smsSenderId?: string;
  /**
   * Origination number (E.164) for SMS.
   * @default - none: SNS picks one
   */
  readonly smsOriginationNumber?: string;
  /**
   * Account-level SNS SMS `MonthlySpendLimit` in USD, set by a custom resource (`SNS.SetSMSAttributes`).
   * It is an account and region wide setting: leave it unset when another stack or a person manages it.
   * It cannot exceed the account's SMS spend quota (US$1 until raised through a support case).
   * @default - not managed by this stack
   */
  readonly smsMonthlySpendLimitUsd?: number;
  /**
   * Alarm when `AWS/SNS SMSMonthToDateSpentUSD` exceeds this many USD.
   * @default - 80% of `smsMonthlySpendLimitUsd`, or US$0.80 (80% of the default US$1 limit)
   */
  readonly smsSpendAlarmThresholdUsd?: number;

  // ---- Push (SNS mobile push) ----
  /**
   * Allow mobile push: `sns:Publish` on platform endpoints.
   * @default true
   */
  readonly pushEnabled?: boolean;
  /**
   * Platform applications (`PLATFORM/name`, e.g. `APNS/my-app`) whose endpoints may be published to.
   * @default - every platform endpoint of this account and region (`endpoint/*`)
   */
  readonly pushPlatformApplications?: readonly string[];

  // ---- Message classes ----
  /**
   * Message classes added to (or overriding) the built-in ones, passed to the functions as `MESSAGE_CLASSES`.
   * @default - only the built-in classes
   */
  readonly messageClasses?: readonly MessageClass[];

  // ---- Producers ----
  /**
   * SNS topics whose messages are notification events: the queue is subscribed to each with
   * raw message delivery. Topics in another account must allow this account to subscribe.
   * @default - none (call `subscribeToTopic` or wire producers yourself)
   */
  readonly producerTopicArns?: readonly string[];
  /**
   * EventBridge rules whose matching events (with the notification event as `detail`) are sent to the queue.
   * @default - none
   */
  readonly producerEventRules?: readonly ProducerEventRule[];

  // ---- Queue ----
  /**
   * Consume an existing queue instead of creating one.
   * @default - a queue and a dead-letter queue are created
   */
  readonly existingQueue?: ExistingQueue;
  /**
   * Visibility timeout of the created queue.
   * @default - 6 x `functionTimeout`
   */
  readonly visibilityTimeout?: Duration;
  /**
   * Message retention of the created queue.
   * @default Duration.days(4)
   */
  readonly queueRetention?: Duration;
  /**
   * Message retention of the created dead-letter queue.
   * @default Duration.days(14)
   */
  readonly deadLetterQueueRetention?: Duration;
  /**
   * Receives before a message moves to the dead-letter queue (at least 5, and enough that a message
   * throttled for 24 hours still has receives left with `throttleBackoff`: 80 with the default backoff).
   * @default 100
   */
  readonly maxReceiveCount?: number;
  /**
   * KMS key for the created queues (the main queue, its dead-letter queue and the status function's
   * failed-events queue). Overrides `encryptionKey` for the queues.
   * @default - `encryptionKey` when given, else SQS-managed server-side encryption (SSE-SQS)
   */
  readonly queueEncryptionKey?: kms.IKey;
  /**
   * One customer-managed KMS key for the ledger table, the queues and the log groups. The functions'
   * roles get encrypt/decrypt on it. A key defined in the same app also gets the key-policy statement
   * CloudWatch Logs needs (scoped to this account's log groups); an imported key's policy must already
   * allow `logs.<region>.amazonaws.com`, and, when producers publish through SNS or EventBridge,
   * `sns.amazonaws.com` / `events.amazonaws.com`.
   * @default - AWS-managed keys: DynamoDB's AWS managed key, SSE-SQS, CloudWatch Logs' own encryption
   */
  readonly encryptionKey?: kms.IKey;
  /**
   * How long after leaving the queues a message may still be replayed (e.g. redriven from the DLQ).
   * The ledger must remember it that long, so ledger retention >= queue + DLQ retention + this.
   * @default Duration.days(7)
   */
  readonly replayWindow?: Duration;

  // ---- Sender function ----
  /**
   * Timeout of the sender, reclaimer and status functions.
   * @default Duration.seconds(30)
   */
  readonly functionTimeout?: Duration;
  /**
   * Memory of the sender, reclaimer and status functions, in MB.
   * @default 512
   */
  readonly memorySize?: number;
  /**
   * SQS records per invocation.
   * @default 10
   */
  readonly batchSize?: number;
  /**
   * How long the event source waits to fill a batch.
   * @default - no batching window
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Most concurrent sender invocations the SQS event source starts (2-1000); bounds provider rate.
   * @default 10
   */
  readonly maxConcurrency?: number;
  /**
   * Provider calls in flight within one invocation.
   * @default 16
   */
  readonly maxConcurrentSends?: number;
  /**
   * Account-wide send rates per channel (sends per second). The sender and the reclaimer pace provider
   * calls to them, each process at its share (`maxConcurrency` + 1 shares); a message without a slot
   * before its invocation ends is deferred unsent (`RateLimitedDeferral`) and its record backed off.
   * @default - e-mail: SES `MaxSendRate`, read with `GetAccount` at cold start; SMS and push: not paced
   */
  readonly sendRates?: SendRates;
  /**
   * Visibility backoff of records the providers throttled or the rate limit deferred (whole seconds).
   * Synth checks that a message throttled for 24 hours still has receives left before the
   * dead-letter queue (`maxReceiveCount`) and that the longest backoff ends within the queue retention.
   * @default - base 10 s, cap 40 min
   */
  readonly throttleBackoff?: ThrottleBackoff;
  /**
   * Largest accepted SQS body in bytes; larger events are dead-lettered.
   * @default 65536
   */
  readonly maxBodyBytes?: number;
  /**
   * Retention of the functions' log groups.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Entry file of the sender handler (exports `handler`).
   * @default - `functions/sender/handler.ts` of this repository
   */
  readonly senderEntry?: string;

  // ---- Ledger ----
  /**
   * A claim older than this is presumed dead and may be taken over (must exceed `functionTimeout`).
   * @default Duration.seconds(120)
   */
  readonly claimTimeout?: Duration;
  /**
   * Timeout of one provider call (must be below `functionTimeout`).
   * @default Duration.seconds(10)
   */
  readonly sendTimeout?: Duration;
  /**
   * How long ledger rows live (whole days; TTL on `expiresAt`).
   * @default Duration.days(30)
   */
  readonly ledgerRetention?: Duration;
  /**
   * Tolerated clock skew of producers' `occurredAt`.
   * @default Duration.minutes(5)
   */
  readonly maxClockSkew?: Duration;
  /**
   * Deletion protection of the ledger table (it is RETAINed on stack deletion either way).
   * @default true
   */
  readonly tableDeletionProtection?: boolean;

  // ---- Reclaimer ----
  /**
   * How often the reclaimer looks for stale PENDING rows.
   * @default Duration.minutes(1)
   */
  readonly reclaimerSchedule?: Duration;
  /**
   * Entry file of the reclaimer handler (exports `handler`).
   * @default - `functions/reclaimer/handler.ts` of this repository
   */
  readonly reclaimerEntry?: string;

  // ---- Delivery status ----
  /**
   * Add an event destination to the configuration set that publishes send, delivery, bounce,
   * complaint, reject, delivery-delay and rendering-failure events to the default EventBridge bus,
   * where a rule passes this configuration set's events to the status Lambda. With
   * `sesConfigurationSetName` the destination is added to that existing set by name. Set false when
   * the set's destinations are managed elsewhere, and add an EventBridge destination for those event
   * types yourself: the rule is created either way.
   * @default true
   */
  readonly sesEventDestination?: boolean;
  /**
   * Send the account's SNS SMS delivery-status logs (`sns/<region>/<account>/DirectPublishToPhoneNumber`
   * and `.../Failure`) to the status Lambda through subscription filters. The log groups are created if
   * missing and never deleted by this stack. SNS only writes them once delivery-status logging is on for
   * the account (see `smsDeliveryStatusSuccessSamplingPercent`). Needs `smsEnabled`.
   * @default false
   */
  readonly smsDeliveryStatusLogs?: boolean;
  /**
   * Turn on the account's SMS delivery-status logging with this success sampling rate (0-100; failures
   * are always logged), through a custom resource calling `SNS.SetSMSAttributes` with a logging role this
   * stack creates (and retains). Account and region wide: leave unset when another stack or a person
   * manages it. Needs `smsDeliveryStatusLogs`.
   * @default - not managed by this stack
   */
  readonly smsDeliveryStatusSuccessSamplingPercent?: number;
  /**
   * Entry file of the status handler (exports `handler`).
   * @default - `functions/status/handler.ts` of this repository
   */
  readonly statusEntry?: string;

  // ---- Operations ----
  /**
   * Alarm thresholds and notification targets.
   * @default - see {@link NotifierAlarmOptions}
   */
  readonly alarms?: NotifierAlarmOptions;
  /**
   * Name of the CloudWatch dashboard.
   * @default - generated by CloudFormation
   */
  readonly dashboardName?: string;
}

/** The settings the construct resolved from its props (defaults applied); used for invariants and env. */
interface Resolved {
  readonly functionTimeout: Duration;
  readonly claimTimeout: Duration;
  readonly sendTimeout: Duration;
  readonly ledgerRetention: Duration;
  readonly replayWindow: Duration;
  readonly visibilityTimeout: Duration;
  readonly queueRetention: Duration;
  readonly deadLetterQueueRetention: Duration;
  readonly maxReceiveCount: number;
  readonly throttleBackoff: BackoffSettings;
}

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
  public readonly senderFunction: NodejsFunction;
  /** The reclaimer function (scheduled). */
  public readonly reclaimerFunction: NodejsFunction;
  /** The delivery-status function (SES events, SMS delivery logs -> ledger). */
  public readonly statusFunction: NodejsFunction;
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
  /** Every alarm, by name. */
  public readonly alarms: Readonly<Record<AlarmName, cloudwatch.Alarm>>;
  /** The operations dashboard. */
  public readonly dashboard: cloudwatch.Dashboard;
  /** The customer-managed key of the ledger, queues and log groups, when one was given. */
  public readonly encryptionKey?: kms.IKey;

  constructor(scope: Construct, id: string, props: IdempotentNotifierProps) {
    super(scope, id);
    this.encryptionKey = props.encryptionKey;
    const resolved = resolveSettings(props);
    const backlogQueue = {
      retentionSeconds: resolved.queueRetention.toSeconds(),
      maxReceiveCount: resolved.maxReceiveCount,
      backoff: resolved.throttleBackoff,
    };
    assertSafe(resolved, [
      ...emailFromViolations(props.emailFrom),
      ...sendPaceViolations(props.sendRates, resolved.throttleBackoff),
      ...alarmOptionViolations(props.alarms ?? {}, Duration.seconds(backlogLossHorizonSeconds(backlogQueue))),
    ]);
    const stack = Stack.of(this);
    const queueKey = props.queueEncryptionKey ?? props.encryptionKey;
    if (props.encryptionKey) allowLogsToUse(props.encryptionKey, stack);

    // ---- Queue ----
    if (props.existingQueue) {
      this.queue = props.existingQueue.queue;
      this.deadLetterQueue = props.existingQueue.deadLetterQueue;
    } else {
      const encryption = queueKey
        ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: queueKey }
        : { encryption: sqs.QueueEncryption.SQS_MANAGED };
      const deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
        ...encryption,
        enforceSSL: true,
        retentionPeriod: resolved.deadLetterQueueRetention,
      });
      this.deadLetterQueue = deadLetterQueue;
      this.queue = new sqs.Queue(this, 'Queue', {
        ...encryption,
        enforceSSL: true,
        retentionPeriod: resolved.queueRetention,
        visibilityTimeout: resolved.visibilityTimeout,
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: resolved.maxReceiveCount },
      });
    }

    (props.producerTopicArns ?? []).forEach((arn, i) =>
      this.subscribeToTopic(sns.Topic.fromTopicArn(this, `ProducerTopic${i}`, arn)),
    );
    (props.producerEventRules ?? []).forEach((rule, i) => this.addEventRule(`ProducerRule${i}`, rule));

    // ---- Ledger table ----
    this.table = new dynamodb.Table(this, 'Ledger', {
      partitionKey: { name: LEDGER_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: LEDGER_TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: LEDGER_TABLE.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.tableDeletionProtection ?? true,
      removalPolicy: RemovalPolicy.RETAIN,
      ...(props.encryptionKey
        ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: props.encryptionKey }
        : { encryption: dynamodb.TableEncryption.AWS_MANAGED }),
    });
    this.table.addGlobalSecondaryIndex({
      indexName: LEDGER_TABLE.pendingIndex.name,
      partitionKey: { name: LEDGER_TABLE.pendingIndex.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: LEDGER_TABLE.pendingIndex.sortKey, type: dynamodb.AttributeType.NUMBER },
      projectionType: dynamodb.ProjectionType[LEDGER_TABLE.pendingIndex.projection],
    });
    this.table.addGlobalSecondaryIndex({
      indexName: LEDGER_TABLE.smsMessageIndex.name,
      partitionKey: { name: LEDGER_TABLE.smsMessageIndex.partitionKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType[LEDGER_TABLE.smsMessageIndex.projection],
    });

    // ---- SES configuration set ----
    if (props.sesConfigurationSetName) {
      this.configurationSet = ses.ConfigurationSet.fromConfigurationSetName(
        this,
        'ConfigurationSet',
        props.sesConfigurationSetName,
      );
    } else {
      this.configurationSet = new ses.ConfigurationSet(this, 'ConfigurationSet', { reputationMetrics: true });
    }
    this.configurationSetName = this.configurationSet.configurationSetName;

    // ---- Environment (exactly the variables the handler validates) ----
    const messageClassesJson = props.messageClasses?.length ? JSON.stringify(props.messageClasses) : undefined;
    const environment: Record<string, string> = {
      [ENV.tableName]: this.table.tableName,
      [ENV.functionTimeoutSeconds]: String(resolved.functionTimeout.toSeconds()),
      [ENV.claimTimeoutSeconds]: String(resolved.claimTimeout.toSeconds()),
      [ENV.sendTimeoutMs]: String(resolved.sendTimeout.toMilliseconds()),
      [ENV.ledgerRetentionDays]: String(resolved.ledgerRetention.toDays()),
      [ENV.maxClockSkewSeconds]: String((props.maxClockSkew ?? Duration.minutes(5)).toSeconds()),
      [ENV.deliveryMode]: 'aws',
      [ENV.emailFrom]: props.emailFrom,
      [ENV.sesConfigurationSet]: this.configurationSetName,
      [ENV.deadLetterQueueUrl]: this.deadLetterQueue.queueUrl,
      [ENV.maxConcurrentSends]: String(props.maxConcurrentSends ?? 16),
      [ENV.maxBodyBytes]: String(props.maxBodyBytes ?? 64 * 1024),
      // Throttled records are backed off with ChangeMessageVisibility on the queue they came from.
      [ENV.sourceQueueUrl]: this.queue.queueUrl,
      // How the queue redelivers: only a claim it may not bring back again enters the pending index.
      [ENV.queueMaxReceiveCount]: String(resolved.maxReceiveCount),
      [ENV.queueRetentionSeconds]: String(resolved.queueRetention.toSeconds()),
      [ENV.queueVisibilityTimeoutSeconds]: String(resolved.visibilityTimeout.toSeconds()),
      // The account's send rate is split between every sender the event source may run and the reclaimer.
      [ENV.sendRateShares]: String((props.maxConcurrency ?? 10) + 1),
      // The account-wide rates, and the backoff steps synth checked against the queue.
      ...sendPaceEnvironment(props.sendRates, resolved.throttleBackoff),
    };
    if (props.smsSenderId) environment[ENV.smsSenderId] = props.smsSenderId;
    if (props.smsOriginationNumber) environment[ENV.smsOriginationNumber] = props.smsOriginationNumber;
    if (messageClassesJson) environment[ENV.messageClasses] = messageClassesJson;
    try {
      // Both handlers validate the same variables at cold start (message classes included; the
      // reclaimer also its time budget): refuse to synth what they would refuse to run.
      loadReclaimerLimits(environment, loadSenderConfig(environment));
    } catch (error) {
      throw new Error(`IdempotentNotifier: the handler would reject this configuration: ${(error as Error).message}`);
    }
    this.environment = environment;

    // ---- Functions ----
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const sender = createNotifierFunction(this, 'Sender', {
      entry: props.senderEntry ?? DEFAULT_ENTRIES.sender,
      description: 'Idempotent notification sender: SQS -> ledger claim -> SES/SNS',
      timeout: resolved.functionTimeout,
      memorySize: props.memorySize ?? 512,
      logRetention,
      logEncryptionKey: props.encryptionKey,
      environment,
    });
    this.senderFunction = sender.fn;
    this.senderLogGroup = sender.logGroup;
    sender.fn.addEventSource(
      new SqsEventSource(this.queue, {
        reportBatchItemFailures: true,
        batchSize: props.batchSize ?? 10,
        maxBatchingWindow: props.maxBatchingWindow,
        // Also the rate shares (SEND_RATE_SHARES): change both together.
        maxConcurrency: props.maxConcurrency ?? 10,
      }),
    );

    const reclaimer = createNotifierFunction(this, 'Reclaimer', {
      entry: props.reclaimerEntry ?? DEFAULT_ENTRIES.reclaimer,
      description: 'Idempotent notification reclaimer: resolves stale PENDING ledger rows',
      // Same timeout as the sender: FUNCTION_TIMEOUT_SECONDS (and the claim-timeout invariant) describes both.
      timeout: resolved.functionTimeout,
      memorySize: props.memorySize ?? 512,
      logRetention,
      logEncryptionKey: props.encryptionKey,
      environment,
    });
    this.reclaimerFunction = reclaimer.fn;
    this.reclaimerLogGroup = reclaimer.logGroup;
    const reclaimerSchedule = props.reclaimerSchedule ?? Duration.minutes(1);
    // A failed run is not retried and a late one is dropped: the next scheduled run does the same work
    // from a fresh read, and a retry would only overlap it. Lambda's bounds: 60 s to 6 h.
    reclaimer.fn.configureAsyncInvoke({
      retryAttempts: 0,
      maxEventAge: Duration.seconds(Math.min(Math.max(reclaimerSchedule.toSeconds(), 60), 6 * 3600)),
    });
    this.reclaimerRule = new events.Rule(this, 'ReclaimerSchedule', {
      description: 'Runs the notifier reclaimer',
      schedule: events.Schedule.rate(reclaimerSchedule),
      targets: [new eventsTargets.LambdaFunction(reclaimer.fn, { retryAttempts: 0 })],
    });

    // ---- Delivery status ----
    const smsDeliveryStatusLogs = props.smsDeliveryStatusLogs ?? false;
    if (smsDeliveryStatusLogs && !(props.smsEnabled ?? true)) {
      throw new Error('IdempotentNotifier: smsDeliveryStatusLogs needs smsEnabled');
    }
    this.deliveryStatus = new DeliveryStatus(this, 'DeliveryStatus', {
      table: this.table,
      configurationSet: this.configurationSet,
      addSesEventDestination: props.sesEventDestination ?? true,
      smsDeliveryStatusLogs,
      smsSuccessSamplingPercent: props.smsDeliveryStatusSuccessSamplingPercent,
      entry: props.statusEntry ?? DEFAULT_ENTRIES.status,
      timeout: resolved.functionTimeout,
      memorySize: props.memorySize ?? 512,
      logRetention,
      logEncryptionKey: props.encryptionKey,
      queueEncryptionKey: queueKey,
    });
    this.statusFunction = this.deliveryStatus.fn;
    this.statusLogGroup = this.deliveryStatus.logGroup;

    // ---- Least-privilege IAM ----
    // Only the sender claims (PutItem); the reclaimer re-reads a row and takes it over fenced (GetItem, UpdateItem).
    this.grantDelivery(sender.fn, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], props, stack);
    this.grantDelivery(reclaimer.fn, ['dynamodb:GetItem', 'dynamodb:UpdateItem'], props, stack);
    // The sender moves invalid events to the DLQ with their reason: SendMessage there, nothing else.
    sender.fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'ForwardInvalidEventsToDeadLetterQueue',
        actions: ['sqs:SendMessage'],
        resources: [this.deadLetterQueue.queueArn],
      }),
    );
    this.deadLetterQueue.encryptionMasterKey?.grantEncryptDecrypt(sender.fn);
    // The ledger's key: every function reads and writes rows.
    for (const fn of [sender.fn, reclaimer.fn, this.statusFunction]) {
      props.encryptionKey?.grantEncryptDecrypt(fn);
      if (props.encryptionKey || queueKey) {
        Validations.of(fn.role ?? fn).acknowledge(
          ...['kms:GenerateDataKey*', 'kms:ReEncrypt*'].map((action) => ({
            id: `AwsSolutions-IAM5[Action::${action}]`,
            reason:
              'CDK grantEncryptDecrypt on the one customer-managed key given to the notifier; KMS names these action ' +
              'families with a wildcard (GenerateDataKey, GenerateDataKeyWithoutPlaintext, ...).',
          })),
        );
      }
    }
    // The reclaimer finds stale claims through the sparse pending index.
    reclaimer.fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'QueryPendingIndex',
        actions: ['dynamodb:Query'],
        resources: [`${this.table.tableArn}/index/${LEDGER_TABLE.pendingIndex.name}`],
      }),
    );

    // ---- SMS spend limit (account level, only when asked) ----
    if (props.smsMonthlySpendLimitUsd !== undefined) this.manageSmsSpendLimit(props.smsMonthlySpendLimitUsd);

    // ---- Alarms and dashboard ----
    const alarms = new NotifierAlarms(this, 'Alarms', {
      ...props.alarms,
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      statusFailedEventQueue: this.deliveryStatus.failedEventQueue,
      functions: { sender: sender.fn, reclaimer: reclaimer.fn, status: this.statusFunction },
      smsSpendThresholdUsd:
        props.smsSpendAlarmThresholdUsd ?? Math.round((props.smsMonthlySpendLimitUsd ?? 1) * 80) / 100,
      backlogAgeThreshold: props.alarms?.backlogAge ?? Duration.seconds(defaultBacklogAgeAlarmSeconds(backlogQueue)),
    });
    this.alarmTopic = alarms.topic;
    this.alarms = alarms.alarms;
    this.dashboard = new NotifierDashboard(this, 'Dashboard', {
      dashboardName: props.dashboardName,
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      functions: { sender: sender.fn, reclaimer: reclaimer.fn, status: this.statusFunction },
      alarms: Object.values(alarms.alarms),
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

  /** What both functions need to settle a message: ledger item access (`itemActions`) and the provider calls. */
  private grantDelivery(
    fn: NodejsFunction,
    itemActions: readonly string[],
    props: IdempotentNotifierProps,
    stack: Stack,
  ): void {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'LedgerItemAccess',
        actions: [...itemActions],
        resources: [this.table.tableArn],
      }),
    );
    const fromAddress = emailAddressOf(props.emailFrom);
    // emailFromViolations has checked that the address has a domain.
    const identities = props.sesIdentity ? [props.sesIdentity] : unique([fromAddress, domainOf(fromAddress) ?? fromAddress]);
    // The e-mail send rate defaults to the account's MaxSendRate, read once per cold start.
    fn.addToRolePolicy(new iam.PolicyStatement({ sid: 'ReadSesSendingQuota', actions: ['ses:GetAccount'], resources: ['*'] }));
    Validations.of(fn.role ?? fn).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'ses:GetAccount reads the account sending quota and supports no resource-level permissions; it is the only action on *.',
    });
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'SendEmailAsIdentityWithConfigurationSet',
        actions: ['ses:SendEmail'],
        resources: [
          ...identities.map((identity) =>
            stack.formatArn({
              service: 'ses',
              resource: 'identity',
              resourceName: identity,
              arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
            }),
          ),
          stack.formatArn({
            service: 'ses',
            resource: 'configuration-set',
            resourceName: this.configurationSetName,
            arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
          }),
        ],
        conditions: { StringEquals: { 'ses:FromAddress': fromAddress } },
      }),
    );
    if (props.smsEnabled ?? true) {
      // SNS allows no narrower grant for SMS: a publish to a phone number has no resource ARN, so IAM can
      // only match it as a resource that is not an SNS ARN. This allows phone numbers, and no topic or endpoint.
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          sid: 'PublishSmsToPhoneNumbersOnly',
          actions: ['sns:Publish'],
          notResources: [`arn:${Aws.PARTITION}:sns:*:*:*`],
        }),
      );
    }
    if (props.pushEnabled ?? true) {
      const applications = props.pushPlatformApplications?.length ? props.pushPlatformApplications : undefined;
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          sid: 'PublishToPlatformEndpoints',
          actions: ['sns:Publish'],
          resources: (applications ?? ['']).map((application) =>
            stack.formatArn({
              service: 'sns',
              resource: 'endpoint',
              resourceName: application ? `${application}/*` : '*',
              arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
            }),
          ),
        }),
      );
      Validations.of(fn.role ?? fn).acknowledge(
        ...(applications ?? ['']).map((application) => ({
          id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sns:<AWS::Region>:<AWS::AccountId>:endpoint/${application ? `${application}/` : ''}*]`,
          reason:
            'Push endpoints are created per device at run time; the grant is limited to platform endpoints ' +
            '(of the configured platform applications when given), never topics.',
        })),
      );
    }
  }

  private manageSmsSpendLimit(limitUsd: number): void {
    if (!(Number.isFinite(limitUsd) && limitUsd >= 0)) {
      throw new Error(`IdempotentNotifier: smsMonthlySpendLimitUsd (${limitUsd}) must be a non-negative number`);
    }
    const resource = new AccountSdkCall(this, 'SmsMonthlySpendLimit', {
      logEncryptionKey: this.encryptionKey,
      call: {
        service: 'SNS',
        action: 'setSMSAttributes',
        parameters: { attributes: { MonthlySpendLimit: String(limitUsd) } },
        physicalResourceId: cr.PhysicalResourceId.of('sns-sms-monthly-spend-limit'),
      },
      // On delete the account keeps its limit: lowering it silently could stop other senders' SMS.
      statements: [new iam.PolicyStatement({ actions: ['sns:SetSMSAttributes'], resources: ['*'] })],
    });
    Validations.of(resource).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'sns:SetSMSAttributes supports no resource-level permissions; the policy allows that one action only.',
    });
  }
}

/**
 * Lets CloudWatch Logs use `key` for this account's log groups (the statement its documentation asks for).
 * A no-op for an imported key, whose policy this stack cannot change.
 */
function allowLogsToUse(key: kms.IKey, stack: Stack): void {
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchLogsOfThisAccount',
      principals: [new iam.ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
      actions: ['kms:Encrypt*', 'kms:Decrypt*', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:Describe*'],
      resources: ['*'],
      conditions: {
        ArnLike: {
          'kms:EncryptionContext:aws:logs:arn': stack.formatArn({
            service: 'logs',
            resource: 'log-group',
            resourceName: '*',
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        },
      },
    }),
    /* allowNoOp */ true,
  );
}

function resolveSettings(props: IdempotentNotifierProps): Resolved {
  const functionTimeout = props.functionTimeout ?? Duration.seconds(30);
  const existing = props.existingQueue;
  return {
    functionTimeout,
    claimTimeout: props.claimTimeout ?? Duration.seconds(120),
    sendTimeout: props.sendTimeout ?? Duration.seconds(10),
    ledgerRetention: props.ledgerRetention ?? Duration.days(30),
    replayWindow: props.replayWindow ?? Duration.days(7),
    visibilityTimeout:
      existing?.visibilityTimeout ?? props.visibilityTimeout ?? Duration.seconds(6 * functionTimeout.toSeconds()),
    queueRetention: existing?.retentionPeriod ?? props.queueRetention ?? Duration.days(4),
    deadLetterQueueRetention:
      existing?.deadLetterRetentionPeriod ?? props.deadLetterQueueRetention ?? Duration.days(14),
    maxReceiveCount: existing?.maxReceiveCount ?? props.maxReceiveCount ?? 100,
    throttleBackoff: resolveThrottleBackoff(props.throttleBackoff),
  };
}

/**
 * Throws one Error listing every unsafe setting (each message names both values).
 * The timing rules themselves live in `functions/core/timing-invariants.ts`, shared with the handler.
 */
function assertSafe(r: Resolved, otherViolations: readonly string[]): void {
  const violations = [...otherViolations];
  violations.push(...timingViolations({
    functionTimeoutSeconds: r.functionTimeout.toSeconds(),
    claimTimeoutSeconds: r.claimTimeout.toSeconds(),
    sendTimeoutMs: r.sendTimeout.toMilliseconds(),
    ledgerRetentionSeconds: r.ledgerRetention.toSeconds(),
    queue: {
      visibilityTimeoutSeconds: r.visibilityTimeout.toSeconds(),
      retentionSeconds: r.queueRetention.toSeconds(),
      deadLetterRetentionSeconds: r.deadLetterQueueRetention.toSeconds(),
      replayWindowSeconds: r.replayWindow.toSeconds(),
      // The steps the sender and the reclaimer get as THROTTLE_BACKOFF_BASE_SECONDS / _CAP_SECONDS.
      maxReceiveCount: r.maxReceiveCount,
      backoff: r.throttleBackoff,
    },
  }));
  if (!(Number.isInteger(r.maxReceiveCount) && r.maxReceiveCount >= MIN_MAX_RECEIVE_COUNT)) {
    violations.push(
      `maxReceiveCount (${r.maxReceiveCount}) must be an integer of at least ${MIN_MAX_RECEIVE_COUNT}, ` +
        'or throttled deliveries reach the dead-letter queue unprocessed',
    );
  }
  const retentionSeconds = r.ledgerRetention.toSeconds();
  if (retentionSeconds % 86_400 !== 0) {
    violations.push(`ledger retention (${retentionSeconds}s) must be a whole number of days (86400s each)`);
  }
  if (violations.length > 0) {
    throw new Error(`IdempotentNotifier: unsafe configuration:\n - ${violations.join('\n - ')}`);
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
