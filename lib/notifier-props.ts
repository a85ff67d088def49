import type { Duration } from 'aws-cdk-lib';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { MessageClassDefinition } from '../functions/core/message-class';
import type { NotifierAlarmOptions } from './alarm-options';
import type { NotifierRuntime } from './lambda-runtime';
import type { LaneOptions } from './notifier-lanes';
import type { SendRates, ThrottleBackoff } from './send-pace';

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
   * SES identity the sender may send as (`ses:SendEmail` is granted on it only): the From address or one of its
   * domains. Synth fails when it does not cover `emailFrom`.
   * @default - the From address and each of its parent domains (`a@mail.acme.com`, `mail.acme.com`, `acme.com`):
   * SES sends as whichever of them is verified
   */
  readonly sesIdentity?: string;
  /**
   * Name of an existing SES configuration set every e-mail is sent with. The delivery-event destination
   * is added to it unless `sesEventDestination` is false.
   * @default - a configuration set is created (reputation metrics on, TLS required: see `sesRequireTls`)
   */
  readonly sesConfigurationSetName?: string;
  /**
   * Require TLS between SES and the receiving mail server (`DeliveryOptions.TlsPolicy: REQUIRE`) on the created
   * configuration set: a server that cannot take TLS gets no e-mail (SES reports a bounce) rather than a login
   * code in clear text. Set false to let SES fall back to an unencrypted connection. Not applied to an existing
   * configuration set (`sesConfigurationSetName`), whose owner sets it.
   * @default true
   */
  readonly sesRequireTls?: boolean;

  // ---- SMS (SNS) ----
  /**
   * Allow SMS: `sns:Publish` to phone numbers (never to topics). Needs `smsCountries` and
   * `smsMonthlySpendLimitUsd`: synth fails without them.
   * @default - true when `smsCountries` are given, else false
   */
  readonly smsEnabled?: boolean;
  /**
   * The countries an SMS may go to, ISO 3166-1 alpha-2 (`['US', 'CA']`). A number of any other country, or of
   * none (international networks such as +882), is never sent: its message ends `SUPPRESSED` `CountryNotAllowed`.
   * IAM cannot narrow `sns:Publish` to countries; this list and the message classes' limits are what stand
   * between a producer and the SMS bill. Synth embeds what telling these countries' numbers apart takes
   * (from libphonenumber-js's metadata) in the sender and the reclaimer.
   * @default - none (SMS off)
   */
  readonly smsCountries?: readonly string[];
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
   * Account-level SNS SMS `MonthlySpendLimit` in USD, set by a custom resource (`SNS.SetSMSAttributes`) and
   * watched by the `SmsMonthToDateSpend` alarm. Required with `smsEnabled` (an SMS sender must say what it may
   * spend; the account's limit outlives the stack), refused without it. It is an account and region wide setting:
   * one stack per account and region should send SMS. It cannot exceed the account's SMS spend quota (US$1
   * until raised through a support case).
   * @default - none: required when `smsEnabled` is true
   */
  readonly smsMonthlySpendLimitUsd?: number;
  /**
   * Alarm when `AWS/SNS SMSMonthToDateSpentUSD` exceeds this many USD (above 0, at most the limit).
   * @default - 80% of `smsMonthlySpendLimitUsd`
   */
  readonly smsSpendAlarmThresholdUsd?: number;

  // ---- Push (SNS mobile push) ----
  /**
   * Allow mobile push: `sns:Publish` on the endpoints of `pushPlatformApplications`. Needs them: synth fails without.
   * @default - true when `pushPlatformApplications` are given, else false
   */
  readonly pushEnabled?: boolean;
  /**
   * ARNs of the platform applications (`arn:aws:sns:<region>:<account>:app/<PLATFORM>/<name>`) whose endpoints may
   * be published to; `sns:Publish` is granted on their endpoints only, and a message to an endpoint of any other
   * application ends `SUPPRESSED` `PushApplicationNotAllowed`.
   * @default - none (push off)
   */
  readonly pushPlatformApplications?: readonly string[];

  // ---- Message classes ----
  /**
   * Message classes added to (or overriding) the built-in ones, passed to the functions as `MESSAGE_CLASSES`.
   * @default - only the built-in classes
   */
  readonly messageClasses?: readonly MessageClassDefinition[];

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

  // ---- Lanes ----
  /**
   * Priority lanes by message class: an urgent lane (every class but the bulk ones) and a bulk lane
   * (`marketing`), each with its own queue, dead-letter queue, sender and share of the account's send rate;
   * producers publish to `eventTopic`, which routes each event by its `messageClass`. `false`: one queue
   * and one sender for every class, as before lanes.
   * @default - the two lanes with the defaults of `LaneOptions`; one queue when `existingQueue` is given
   */
  readonly lanes?: LaneOptions | false;

  // ---- Queue ----
  /**
   * Consume an existing queue instead of creating one (one lane: `lanes` must be left out or `false`).
   * @default - a queue and a dead-letter queue are created per lane
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
   * throttled for 24 hours still has receives left with `throttleBackoff`: 80 with the default backoff, 84 for the
   * urgent lane's 1 s first step).
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
   * The Lambda runtime of every function in the stack (the sender, reclaimer and status functions and the
   * account-setting calls), and the esbuild target their bundles are built for. `nodejs22.x` is for a team that
   * must stay on Node.js 22 for a while; its end of life is 30 April 2027.
   * @default 'nodejs24.x'
   */
  readonly lambdaRuntime?: NotifierRuntime;
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
   * Most concurrent sender invocations the SQS event source starts (2-1000); bounds provider rate. With lanes,
   * the bulk lane's (the urgent lane's is `lanes.urgentMaxConcurrency`).
   * @default 10
   */
  readonly maxConcurrency?: number;
  /**
   * Concurrency reserved for the sender: guarantees it `maxConcurrency` instances whatever else runs in the account
   * (and caps it there). Must be at least `maxConcurrency`, or the event source's invocations are throttled and
   * records spend their receives.
   * @default - none reserved: the sender shares the account's unreserved concurrency
   */
  readonly senderReservedConcurrency?: number;
  /**
   * Concurrency reserved for the status function, which is also its bound: Lambda invokes it once per SES event
   * (and per SMS log batch), asynchronously, so a burst is queued and retried (for up to 6 hours) instead of
   * taking the account's concurrency from the sender. Reserving needs an account concurrency quota of at least
   * 100 + this (new accounts may start lower: request an increase, or it fails at deploy).
   * @default 5
   */
  readonly statusReservedConcurrency?: number;
  /**
   * Provider calls in flight within one invocation.
   * @default 16
   */
  readonly maxConcurrentSends?: number;
  /**
   * Account-wide send rates per channel (sends per second). The senders and the reclaimer pace provider
   * calls to them, each process at its share: without lanes `maxConcurrency` + 1 shares; with lanes the urgent
   * lane's `urgentMaxConcurrency` + 1 shares of the whole rate (the reclaimer holds one), the bulk lane's
   * `maxConcurrency` shares of `bulkRateShare` of it. A message without a slot
   * before its invocation ends is deferred unsent (`RateLimitedDeferral`) and its record backed off.
   * @default - e-mail: SES `MaxSendRate`, read with `GetAccount` at cold start; SMS and push: not paced
   */
  readonly sendRates?: SendRates;
  /**
   * Visibility backoff of records the providers throttled or the rate limit deferred (whole seconds); with lanes,
   * the urgent lane starts from `lanes.urgentThrottleBackoffBase` instead of `base`.
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
  /**
   * Folder of template files (`<templateId>.json`) the sender renders. Synth validates every file
   * (placeholders declared, SMS parts, subject length, push payload size, no unescaped HTML) and fails
   * listing every problem; the files are embedded in the sender's bundle and validated again at cold start.
   * @default - the `templates/` folder of this package
   */
  readonly templatesDir?: string;

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
   * CloudWatch namespace of the notifier's own metrics: the functions emit there
   * (`POWERTOOLS_METRICS_NAMESPACE`) and the alarms and the dashboard read only it, so two notifiers in one
   * account and region never see each other's metrics. Set it to keep a namespace dashboards outside the stack read.
   * @default - `IdempotentNotifier/<stack name>/<construct path in the stack>`, e.g. `IdempotentNotifier/IdempotentNotifier/Notifier`
   */
  readonly metricsNamespace?: string;
  /**
   * Name of the CloudWatch dashboard.
   * @default - generated by CloudFormation
   */
  readonly dashboardName?: string;
}
