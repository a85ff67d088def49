import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { NotifierMetrics } from '../metrics';
import type { ResolvedAlarmSettings } from '../notifier-settings';
import type { AlarmName } from './alarm-names';

/** The notifier's functions other than the lanes' senders, by role. */
export interface NotifierFunctions {
  /** The scheduled reclaimer. */
  readonly reclaimer: lambda.IFunction;
  /** The delivery-status consumer. */
  readonly status: lambda.IFunction;
  /** The outcome publisher (the ledger's stream -> the event bus). */
  readonly outcomes: lambda.IFunction;
  /** The fallback trigger (the ledger's stream -> requests on the sender's queues). */
  readonly fallback: lambda.IFunction;
}

/** One sender lane, as the alarms and the dashboard read it. */
export interface AlarmLane {
  /** `urgent`, `bulk` or `single`. */
  readonly name: string;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly sender: lambda.IFunction;
}

/** What an alarm row reads: the notifier's resources, its own metrics and the resolved thresholds. */
export interface AlarmSources {
  /** The notifier's own metrics, in its namespace, at the alarm period. */
  readonly metrics: NotifierMetrics;
  /** The sender lanes (one without lanes), each with its queue pair and sender. */
  readonly lanes: readonly AlarmLane[];
  /**
   * The event topic that routes into the lanes.
   * @default - none (no lanes)
   */
  readonly eventTopic?: sns.ITopic;
  /** The status function's on-failure destination. */
  readonly statusFailedEventQueue: sqs.IQueue;
  /** The outcome stream mapping's on-failure destination. */
  readonly outcomeFailedBatchQueue: sqs.IQueue;
  /** The fallback stream mapping's on-failure destination. */
  readonly fallbackFailedBatchQueue: sqs.IQueue;
  /**
   * The dead-letter queue of the SES event rule's target, with `sesEventBridgeRule`.
   * @default - none (no rule)
   */
  readonly sesEventRuleDeadLetterQueue?: sqs.IQueue;
  /** The dead-letter queue of the SES events queue. */
  readonly sesEventDeadLetterQueue: sqs.IQueue;
  /** The notifier's functions. */
  readonly functions: NotifierFunctions;
  /** The send ledger. */
  readonly table: dynamodb.ITable;
  /** Names of the ledger's global secondary indexes. */
  readonly ledgerIndexNames: readonly string[];
  /** Name of the SES configuration set every e-mail is sent with (its reputation metrics are the stack's own). */
  readonly configurationSetName: string;
  /**
   * Name of the bulk lane's configuration set (its tenant's reputation metrics).
   * @default - none (no lanes, or one configuration set given)
   */
  readonly bulkConfigurationSetName?: string;
  /**
   * The message classes whose e-mail the bulk SES tenant sends (the bulk lane's classes: functions/core/policy/email-route.ts).
   * @default - none (no lanes: one tenant)
   */
  readonly bulkEmailClasses?: readonly string[];
  /** Whether the notifier sends SMS (the SMS alarms exist only then). */
  readonly smsEnabled: boolean;
  /** Which service sends SMS: the spend and success alarms read that service's metrics. @default 'sns' */
  readonly smsProvider?: 'sns' | 'end-user-messaging';
  /** The dead-letter queue of End User Messaging's events queue, when SMS goes through it. @default - none */
  readonly smsEventDeadLetterQueue?: sqs.IQueue;
  /** Thresholds and periods, defaults applied. */
  readonly settings: ResolvedAlarmSettings;
}

/**
 * One alarm: what it watches and when it fires. Every alarm notifies the alarm topic on ALARM and OK, fires
 * when the metric is above the threshold (unless `comparison` says otherwise) and treats missing data as
 * not breaching (EMF metrics exist only when emitted: no datapoint, no such event).
 */
export interface AlarmSpec {
  /** What it means when it fires; the runbook link is appended. */
  readonly description: string;
  readonly metric: (s: AlarmSources) => cloudwatch.IMetric;
  readonly threshold: (s: AlarmSources) => number;
  /**
   * Consecutive breaching periods before it fires (all of them must breach).
   * @default 1
   */
  readonly evaluationPeriods?: (s: AlarmSources) => number;
  /**
   * How the metric is compared with the threshold.
   * @default cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD
   */
  readonly comparison?: cloudwatch.ComparisonOperator;
  /**
   * Whether this notifier has the alarm (e.g. the SMS alarms only when SMS is enabled).
   * @default - always
   */
  readonly when?: (s: AlarmSources) => boolean;
}

/**
 * A part of the alarm table: the rows of the alarms that watch one concern (sending, the ledger, ...).
 * `lib/alarm-table.ts` joins the parts into the one table.
 */
export type AlarmGroup = { readonly [N in AlarmName]?: AlarmSpec };
