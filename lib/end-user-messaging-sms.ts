import { Aws, type Duration, Names, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as smsvoice from 'aws-cdk-lib/aws-smsvoice';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { IdempotentNotifierProps } from './notifier-props';
import { addEventTopicQueue } from './event-topic-queue';

/** The SMS props End User Messaging needs, each refused with the value given. */
export function endUserMessagingViolations(
  props: Pick<IdempotentNotifierProps, 'smsProvider' | 'smsOriginationIdentities' | 'smsMaxPriceUsd' | 'smsProtectConfigurationId' | 'smsMonthlySpendLimitUsd' | 'smsDeliveryStatusLogs'>,
  smsEnabled: boolean,
): string[] {
  const provider = props.smsProvider ?? 'sns';
  const eumOnly = { smsOriginationIdentities: props.smsOriginationIdentities, smsMaxPriceUsd: props.smsMaxPriceUsd, smsProtectConfigurationId: props.smsProtectConfigurationId };
  if (provider !== 'sns' && provider !== 'end-user-messaging') return [`smsProvider (${String(provider)}) must be 'sns' or 'end-user-messaging'`];
  if (provider === 'sns') {
    const given = Object.entries(eumOnly).filter(([, v]) => v !== undefined).map(([k]) => k);
    return given.length > 0 ? [`${given.join(', ')} need smsProvider: 'end-user-messaging' (smsProvider: 'sns')`] : [];
  }
  const violations: string[] = [];
  if (!smsEnabled) violations.push("smsProvider 'end-user-messaging' needs smsEnabled (and smsCountries)");
  if (props.smsDeliveryStatusLogs) {
    violations.push("smsDeliveryStatusLogs (true) reads SNS's SMS logs, which End User Messaging texts never reach: its own events are the stack's evidence");
  }
  const identities = props.smsOriginationIdentities ?? [];
  if (identities.length === 0) {
    violations.push("smsOriginationIdentities is required with smsProvider 'end-user-messaging': the ARNs of the phone numbers, sender IDs or pools to send from (the grant is on these only)");
  }
  for (const arn of identities) {
    if (!ORIGINATION_IDENTITY_ARN.test(arn)) violations.push(`smsOriginationIdentities (${arn}) must be an sms-voice phone-number, sender-id or pool ARN`);
  }
  if (props.smsMaxPriceUsd !== undefined && !/^\d{1,2}\.\d{2,5}$/.test(props.smsMaxPriceUsd)) {
    violations.push(`smsMaxPriceUsd (${props.smsMaxPriceUsd}) must be US dollars per message part such as '0.10'`);
  }
  if (props.smsMonthlySpendLimitUsd !== undefined && !Number.isInteger(props.smsMonthlySpendLimitUsd)) {
    violations.push(`smsMonthlySpendLimitUsd (${props.smsMonthlySpendLimitUsd}) must be whole dollars with End User Messaging (SetTextMessageSpendLimitOverride takes an integer)`);
  }
  return violations;
}

const ORIGINATION_IDENTITY_ARN = /^arn:aws[a-z-]*:sms-voice:[a-z0-9-]+:\d{12}:(phone-number|sender-id|pool)\/[A-Za-z0-9_/-]+$/;

/** The event types the configuration set publishes: every SMS event (the status Lambda counts a type it does not know). */
export const EUM_MATCHING_EVENT_TYPES = ['TEXT_ALL'] as const;

/** What {@link EndUserMessagingSms} builds on. */
export interface EndUserMessagingSmsProps {
  /**
   * Key of the events topic; End User Messaging is allowed to use it for this account. Only a key defined in this
   * app can be given: the service's grant goes into the key's policy ("If your Amazon SNS topic has server-side
   * encryption enabled with AWS Key Management Service then also add the policy to the associated symmetric
   * encryption customer managed key", End User Messaging SMS user guide, "Amazon SNS event destination":
   * https://docs.aws.amazon.com/sms-voice/latest/userguide/configuration-sets-sns-event-destination.html), and the
   * policy of an imported key cannot be changed from here.
   * @default - a key of its own, with rotation
   */
  readonly topicEncryptionKey?: kms.Key;
  /**
   * Key of the events queue and its dead-letter queue.
   * @default - SQS-managed server-side encryption (SSE-SQS)
   */
  readonly queueEncryptionKey?: kms.IKey;
  /** A protect configuration to associate with the configuration set. @default - none */
  readonly protectConfigurationId?: string;
  /** The status function's timeout: the events queue's visibility timeout is six times it (Lambda's advice for SQS sources). */
  readonly statusTimeout: Duration;
}

/** Receives of one events batch before it is dead-lettered: a ledger outage is retried for minutes first. */
export const EUM_EVENTS_MAX_RECEIVE_COUNT = 10;

/**
 * End User Messaging SMS's half of the delivery-status path: the configuration set every text is sent with, and its
 * event destination. Events reach the status Lambda through an SNS topic and an SQS queue (raw delivery) with a
 * dead-letter queue, not through CloudWatch Logs or EventBridge: a queue keeps an event through a throttled or failing
 * status Lambda and a ledger outage (retried on each visibility timeout, then kept 14 days in the dead-letter queue
 * with an alarm), where a log subscription or EventBridge (best effort for these events) would retry twice and drop it.
 */
export class EndUserMessagingSms extends Construct {
  public readonly configurationSet: smsvoice.CfnConfigurationSet;
  public readonly configurationSetName: string;
  public readonly configurationSetArn: string;
  public readonly topic: sns.Topic;
  public readonly queue: sqs.Queue;
  public readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: EndUserMessagingSmsProps) {
    super(scope, id);
    const account = Stack.of(this).account;
    ({ topic: this.topic, queue: this.queue, deadLetterQueue: this.deadLetterQueue } = addEventTopicQueue(this, {
      publisher: 'sms-voice.amazonaws.com',
      keyStatementSid: 'AllowEndUserMessagingToPublishEvents',
      description: 'End User Messaging SMS events',
      deadLetterQueueOf: 'End User Messaging events queue',
      maxReceiveCount: EUM_EVENTS_MAX_RECEIVE_COUNT,
      statusTimeout: props.statusTimeout,
      topicEncryptionKey: props.topicEncryptionKey,
      queueEncryptionKey: props.queueEncryptionKey,
    }));
    this.configurationSetName = Names.uniqueResourceName(this, { maxLength: 64, separator: '-' });
    this.configurationSetArn = Stack.of(this).formatArn({ service: 'sms-voice', resource: 'configuration-set', resourceName: this.configurationSetName });
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'EndUserMessagingPublishesThisConfigurationSetsEvents',
        principals: [new iam.ServicePrincipal('sms-voice.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': account }, ArnLike: { 'aws:SourceArn': this.configurationSetArn } },
      }),
    );


    this.configurationSet = new smsvoice.CfnConfigurationSet(this, 'ConfigurationSet', {
      configurationSetName: this.configurationSetName,
      ...(props.protectConfigurationId ? { protectConfigurationId: props.protectConfigurationId } : {}),
      eventDestinations: [
        {
          eventDestinationName: 'notifier-delivery-status',
          enabled: true,
          matchingEventTypes: [...EUM_MATCHING_EVENT_TYPES],
          snsDestination: { topicArn: this.topic.topicArn },
        },
      ],
    });
    // The service checks the destination when the set is created: the topic's policy must be in place first.
    this.configurationSet.node.addDependency(this.topic);
  }

  /**
   * Hands the queued events to the status function, batch by batch (a thrown batch comes back after the visibility
   * timeout), at most `maxConcurrency` at once: the event source does not know the function's reservation, so it must
   * stay within what the function can take, or throttled batches spend receives toward the dead-letter queue.
   */
  deliverTo(status: lambda.Function, options: { readonly maxConcurrency: number }): void {
    status.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, maxConcurrency: options.maxConcurrency }));
  }

  /** `sms-voice:SendTextMessage` with this configuration set and these origination identities (and protect configuration) only. */
  sendTextMessageStatement(identities: readonly string[], protectConfigurationId: string | undefined): iam.PolicyStatement {
    const stack = Stack.of(this);
    return new iam.PolicyStatement({
      sid: 'SendTextMessageWithConfigurationSet',
      actions: ['sms-voice:SendTextMessage'],
      resources: [
        this.configurationSetArn,
        ...identities,
        ...(protectConfigurationId
          ? [stack.formatArn({ service: 'sms-voice', resource: 'protect-configuration', resourceName: protectConfigurationId, region: Aws.REGION })]
          : []),
      ],
    });
  }
}
