import { Duration, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventsTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambdaDestinations from 'aws-cdk-lib/aws-lambda-destinations';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as ses from 'aws-cdk-lib/aws-ses';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LEDGER_TABLE } from '../functions/core/ledger/ledger-table';
import { ENV } from '../functions/core/sender-config';
import { loadStatusConfig } from '../functions/status/status-config';
import type { NotifierRuntime } from './lambda-runtime';
import { retainedFailureQueue } from './ledger-stream-consumer';
import { createNotifierFunction } from './notifier-function';
import { SesEventQueue } from './ses-event-queue';
import { SmsDeliveryStatusLogs } from './sms-delivery-status';

/**
 * The SES events the status Lambda records: every stage of a message's life SES reports without
 * open/click tracking (those need tracking domains and say nothing about whether SES sent it).
 */
export const SES_STATUS_EVENTS: readonly ses.EmailSendingEvent[] = [
  ses.EmailSendingEvent.SEND,
  ses.EmailSendingEvent.DELIVERY,
  ses.EmailSendingEvent.BOUNCE,
  ses.EmailSendingEvent.COMPLAINT,
  ses.EmailSendingEvent.REJECT,
  ses.EmailSendingEvent.DELIVERY_DELAY,
  ses.EmailSendingEvent.RENDERING_FAILURE,
  // A contact's unsubscribe through SES's one-click header or landing page: recorded as the address's consent.
  ses.EmailSendingEvent.SUBSCRIPTION,
];

/** SES tags every published event with its configuration set (`mail.tags['ses:configuration-set']`). */
export const SES_CONFIGURATION_SET_TAG = 'ses:configuration-set';

/** What {@link DeliveryStatus} wires. */
export interface DeliveryStatusProps {
  /** The send ledger the status is recorded on. */
  readonly table: dynamodb.ITable;
  /** The configuration sets e-mail is sent with (one per lane, or the one given), the urgent (or only) one first. */
  readonly configurationSets: readonly ses.IConfigurationSet[];
  /** Add the SNS event destination (and, with `sesEventBridgeRule`, the EventBridge one) to each set (false: someone else does). */
  readonly addSesEventDestination: boolean;
  /**
   * Also route SES events through the default event bus and a rule (the path before the SNS -> SQS queue): an opt-in
   * for a deployment whose other consumers read SES events from EventBridge. Best effort (EventBridge's event reference).
   * @default false
   */
  readonly sesEventBridgeRule?: boolean;
  /**
   * KMS key of the SES events topic.
   * @default - a key of its own
   */
  readonly topicEncryptionKey?: kms.IKey;
  /** Consume the account's SNS SMS delivery-status logs. */
  readonly smsDeliveryStatusLogs: boolean;
  /**
   * Turn on the account's SMS delivery-status logging with this success sampling rate (percent).
   * @default - the account setting is not managed
   */
  readonly smsSuccessSamplingPercent?: number;
  /** Entry file of the status handler. */
  readonly entry: string;
  /**
   * Concurrency reserved for the function, then also its bound.
   * @default - none reserved (a new account cannot reserve any)
   */
  readonly reservedConcurrentExecutions?: number;
  /**
   * Most invocations the SES events queue's event source starts at once (2 to 1000): an event source mapping does not
   * know the function's reservation, so the stack sizes every source of the status function to fit in it together.
   */
  readonly eventSourceMaxConcurrency: number;
  /** The CloudWatch namespace its metrics go to (`POWERTOOLS_METRICS_NAMESPACE`). */
  readonly metricsNamespace: string;
  /** Function timeout. */
  readonly timeout: Duration;
  /** Memory in MB. */
  readonly memorySize: number;
  /** Its Lambda runtime, and the SMS delivery-status custom resources'. */
  readonly runtime: NotifierRuntime;
  /** Retention of its log group. */
  readonly logRetention: logs.RetentionDays;
  /**
   * KMS key of its log group (and of the SMS delivery-status custom resources' log groups).
   * @default - CloudWatch Logs' own encryption
   */
  readonly logEncryptionKey?: kms.IKey;
  /**
   * KMS key of the failed-events queue.
   * @default - SQS-managed server-side encryption (SSE-SQS)
   */
  readonly queueEncryptionKey?: kms.IKey;
}

/** Lambda's own defaults for asynchronous invocations, set explicitly: evidence is worth every retry it gets. */
export const STATUS_ASYNC_RETRY_ATTEMPTS = 2;
/** How long Lambda keeps retrying a throttled or failed status event before it goes to the failed-events queue. */
export const STATUS_MAX_EVENT_AGE = Duration.hours(6);

/**
 * The delivery-status path: the status Lambda (ledger `UpdateItem`/`GetItem`, `Query` on the
 * SMS message id index, nothing else), SES configuration-set events through the default
 * event bus, and optionally the SNS SMS delivery-status logs through subscription filters.
 */
export class DeliveryStatus extends Construct {
  /** The status function. */
  public readonly fn: lambda.Function;
  /** Its log group (data-protection policy attached). */
  public readonly logGroup: logs.LogGroup;
  /** SES events' durable path: the configuration sets' SNS topic, the status queue and its dead-letter queue. */
  public readonly sesEvents: SesEventQueue;
  /** With `sesEventBridgeRule`: the rule on the default event bus that passes these configuration sets' SES events to the function. */
  public readonly sesEventRule?: events.Rule;
  /** With `sesEventBridgeRule`: the EventBridge event destinations, unless `addSesEventDestination` was false. */
  public readonly sesEventBridgeDestinations?: readonly ses.ConfigurationSetEventDestination[];
  /** The SMS delivery-status log subscriptions, when enabled. */
  public readonly smsLogs?: SmsDeliveryStatusLogs;
  /** Events the status function failed on after its retries (its asynchronous on-failure destination). */
  public readonly failedEventQueue: sqs.Queue;
  /** With `sesEventBridgeRule`: SES events EventBridge could not hand to the status function (the rule target's dead-letter queue). */
  public readonly sesEventRuleDeadLetterQueue?: sqs.Queue;

  constructor(scope: Construct, id: string, props: DeliveryStatusProps) {
    super(scope, id);
    const environment = { [ENV.tableName]: props.table.tableName, [ENV.metricsNamespace]: props.metricsNamespace };
    loadStatusConfig(environment);
    const status = createNotifierFunction(this, 'Status', {
      entry: props.entry,
      description: 'Idempotent notification delivery status: SES events and SNS SMS delivery logs -> ledger',
      timeout: props.timeout,
      memorySize: props.memorySize,
      runtime: props.runtime,
      logRetention: props.logRetention,
      logEncryptionKey: props.logEncryptionKey,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      environment,
    });
    this.fn = status.fn;
    this.logGroup = status.logGroup;

    // EventBridge and CloudWatch Logs invoke asynchronously: without a destination, an event that still
    // fails after Lambda's retries is dropped, and its row loses the evidence. Kept 14 days for a redrive.
    this.failedEventQueue = retainedFailureQueue(this, 'FailedEvents', { queueEncryptionKey: props.queueEncryptionKey, destinationOf: 'the status function' });
    status.fn.configureAsyncInvoke({
      onFailure: new lambdaDestinations.SqsDestination(this.failedEventQueue),
      retryAttempts: STATUS_ASYNC_RETRY_ATTEMPTS,
      maxEventAge: STATUS_MAX_EVENT_AGE,
    });

    // Exactly what DynamoDbLedger.recordDeliveryStatus, keyForSmsMessageId, consentKeyOfRow and
    // suppressAfterAcceptance call, and the consent records (items of the same table) it reads and writes.
    status.fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'RecordDeliveryStatus',
        actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        resources: [props.table.tableArn],
      }),
    );
    status.fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'QuerySmsMessageIndex',
        actions: ['dynamodb:Query'],
        resources: [`${props.table.tableArn}/index/${LEDGER_TABLE.smsMessageIndex.name}`],
      }),
    );

    // SES -> SNS -> SQS -> the status function in batches: the durable path (lib/ses-event-queue.ts).
    this.sesEvents = new SesEventQueue(this, 'SesEvents', {
      configurationSets: props.configurationSets,
      events: SES_STATUS_EVENTS,
      addEventDestinations: props.addSesEventDestination,
      topicEncryptionKey: props.topicEncryptionKey,
      queueEncryptionKey: props.queueEncryptionKey,
      statusTimeout: props.timeout,
    });
    this.sesEvents.deliverTo(status.fn, props.eventSourceMaxConcurrency);
    const bridge = props.sesEventBridgeRule ? this.eventBridgeRoute(status.fn, props) : undefined;
    this.sesEventRule = bridge?.rule;
    this.sesEventRuleDeadLetterQueue = bridge?.deadLetterQueue;
    this.sesEventBridgeDestinations = bridge?.destinations;

    if (props.smsDeliveryStatusLogs) {
      this.smsLogs = new SmsDeliveryStatusLogs(this, 'SmsLogs', {
        destination: status.fn,
        successSamplingPercent: props.smsSuccessSamplingPercent,
        retention: props.logRetention,
        logEncryptionKey: props.logEncryptionKey,
        runtime: props.runtime,
      });
    } else if (props.smsSuccessSamplingPercent !== undefined) {
      throw new Error('IdempotentNotifier: smsDeliveryStatusSuccessSamplingPercent needs smsDeliveryStatusLogs: true');
    }
  }

  /** The opt-in EventBridge route (`sesEventBridgeRule`): destinations to the default bus, a rule, its dead-letter queue. */
  private eventBridgeRoute(fn: lambda.Function, props: DeliveryStatusProps) {
    // EventBridge hands an event to Lambda (which then retries it itself); one it cannot hand over (the function
    // deleted, its permission removed, the invoke throttled past EventBridge's 24 hours) lands here with its reason.
    const deadLetterQueue = retainedFailureQueue(this, 'SesEventRuleDeadLetters', { queueEncryptionKey: props.queueEncryptionKey, destinationOf: "the SES event rule's target" });
    // EventBridge encrypts what it dead-letters with the queue's key: a key of this app lets it, for this rule only.
    props.queueEncryptionKey?.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowSesEventRuleToDeadLetter',
        principals: [new iam.ServicePrincipal('events.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      /* allowNoOp */ true,
    );

    const defaultBus = events.EventBus.fromEventBusName(this, 'DefaultBus', 'default');
    const destinations = props.addSesEventDestination
      ? props.configurationSets.map(
          (configurationSet, index) =>
            new ses.ConfigurationSetEventDestination(this, index === 0 ? 'SesEventDestination' : `SesEventDestination${index + 1}`, {
              configurationSet,
              destination: ses.EventDestination.eventBus(defaultBus),
              events: [...SES_STATUS_EVENTS],
            }),
        )
      : [];
    const rule = new events.Rule(this, 'SesEventRule', {
      description: 'SES events of the notifier configuration sets -> delivery-status Lambda',
      eventBus: defaultBus,
      eventPattern: {
        source: ['aws.ses'],
        detail: { mail: { tags: { [SES_CONFIGURATION_SET_TAG]: props.configurationSets.map((set) => set.configurationSetName) } } },
      },
      targets: [new eventsTargets.LambdaFunction(fn, { deadLetterQueue })],
    });
    return { rule, deadLetterQueue, destinations };
  }
}
