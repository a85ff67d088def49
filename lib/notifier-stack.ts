import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { notifierPropsFromContext } from './context-config';
import { IdempotentNotifier, type IdempotentNotifierProps } from './notifier';
import { ALARM, runbookLink } from './notifier-alarms';

/** Props of {@link NotifierStack}. */
export interface NotifierStackProps extends StackProps {
  /**
   * Configuration of the notifier.
   * @default - read from the `notifier:*` context (cdk.json or `-c`), see lib/context-config.ts
   */
  readonly notifier?: IdempotentNotifierProps;
}

/**
 * The deployable stack: one {@link IdempotentNotifier} plus outputs a person needs after
 * `cdk deploy` (queue to wire producers to, table, functions, dashboard, alarm topic).
 * Environment-agnostic unless `env` is given: synth needs no AWS credentials and makes no look-ups.
 */
export class NotifierStack extends Stack {
  /** The notifier. */
  public readonly notifier: IdempotentNotifier;

  constructor(scope: Construct, id: string, props: NotifierStackProps = {}) {
    super(scope, id, {
      description: 'Idempotent notification sender: SQS -> Lambda -> DynamoDB send ledger -> SES v2 / SNS',
      ...props,
    });
    this.notifier = new IdempotentNotifier(this, 'Notifier', props.notifier ?? notifierPropsFromContext(this));
    const n = this.notifier;
    const output = (id: string, value: string, description: string): void => {
      new CfnOutput(this, id, { value, description });
    };
    if (n.eventTopic) output('EventTopicArn', n.eventTopic.topicArn, 'Topic producers publish notification events to (routed into the lanes by messageClass)');
    output('QueueUrl', n.queue.queueUrl, n.eventTopic ? "The urgent lane's queue" : 'Queue producers send notification events to');
    output('QueueArn', n.queue.queueArn, 'ARN of that queue (SNS subscription / EventBridge target)');
    output('DeadLetterQueueUrl', n.deadLetterQueue.queueUrl, `Dead-letter queue${n.eventTopic ? ' of the urgent lane' : ''} (invalid events, exhausted retries)`);
    for (const lane of n.lanes.slice(1)) {
      const prefix = lane.name === 'bulk' ? 'Bulk' : lane.name;
      output(`${prefix}QueueUrl`, lane.queue.queueUrl, `The ${lane.name} lane's queue`);
      output(`${prefix}DeadLetterQueueUrl`, lane.deadLetterQueue.queueUrl, `Dead-letter queue of the ${lane.name} lane (invalid events, exhausted retries)`);
      output(`${prefix}SenderFunctionName`, lane.senderFunction.functionName, `Sender Lambda of the ${lane.name} lane`);
      output(`${prefix}SenderLogGroupName`, lane.senderLogGroup.logGroupName, `Log group of the ${lane.name} lane's sender (addresses masked)`);
    }
    output('LedgerTableName', n.table.tableName, 'DynamoDB send ledger');
    output('SenderFunctionName', n.senderFunction.functionName, 'Sender Lambda');
    output('ReclaimerFunctionName', n.reclaimerFunction.functionName, 'Reclaimer Lambda');
    output('SenderLogGroupName', n.senderLogGroup.logGroupName, 'Sender log group (addresses masked)');
    output('ReclaimerLogGroupName', n.reclaimerLogGroup.logGroupName, 'Reclaimer log group (addresses masked)');
    output('StatusFunctionName', n.statusFunction.functionName, 'Delivery-status Lambda');
    output('StatusLogGroupName', n.statusLogGroup.logGroupName, 'Delivery-status log group (addresses masked)');
    output(
      'StatusFailedEventQueueUrl',
      n.deliveryStatus.failedEventQueue.queueUrl,
      `Delivery-status events that failed after all retries (runbook: ${runbookLink(ALARM.statusFailedEvents)})`,
    );
    output('SesEventQueueUrl', n.deliveryStatus.sesEvents.queue.queueUrl, 'SES events on their way to the status Lambda');
    output(
      'SesEventDeadLetterQueueUrl',
      n.deliveryStatus.sesEvents.deadLetterQueue.queueUrl,
      `SES events the status Lambda failed on (runbook: ${runbookLink(ALARM.sesEventDeadLetters)})`,
    );
    if (n.deliveryStatus.sesEventRuleDeadLetterQueue) {
      output(
        'SesEventRuleDeadLetterQueueUrl',
        n.deliveryStatus.sesEventRuleDeadLetterQueue.queueUrl,
        `SES events the EventBridge rule could not deliver to the status Lambda (runbook: ${runbookLink(ALARM.sesEventRuleDeadLetters)})`,
      );
    }
    output('SesConfigurationSetName', n.configurationSetName, 'SES configuration set used for every e-mail');
    output('OutcomeEventBusName', n.outcomeEventBus.eventBusName, 'Event bus with one event per message outcome (docs/outcome-events.md): subscribe with a rule');
    output('OutcomeEventBusArn', n.outcomeEventBus.eventBusArn, 'ARN of that bus');
    output(
      'OutcomeFailedBatchQueueUrl',
      n.outcomeEvents.failedBatchQueue.queueUrl,
      `Stream batches the outcome publisher gave up on (runbook: ${runbookLink(ALARM.outcomeFailedBatches)})`,
    );
    output(
      'FallbackFailedBatchQueueUrl',
      n.channelFallback.failedBatchQueue.queueUrl,
      `Stream batches the fallback trigger gave up on (runbook: ${runbookLink(ALARM.fallbackFailedBatches)})`,
    );
    if (n.endUserMessaging) {
      const eum = n.endUserMessaging;
      output('SmsConfigurationSetName', eum.configurationSetName, 'End User Messaging configuration set every text is sent with');
      output('SmsEventQueueUrl', eum.queue.queueUrl, "End User Messaging's SMS events on their way to the status Lambda");
      output('SmsEventDeadLetterQueueUrl', eum.deadLetterQueue.queueUrl, `SMS events the status Lambda failed on (runbook: ${runbookLink(ALARM.smsEventDeadLetters)})`);
    }
    output('AlarmTopicArn', n.alarmTopic.topicArn, 'SNS topic the alarms notify');
    const ledgerErrors = n.alarms[ALARM.ledgerErrors];
    if (ledgerErrors) output(`${ALARM.ledgerErrors}AlarmName`, ledgerErrors.alarmName, 'Ledger-errors alarm (npm run test:aws sets it to prove alarm delivery)');
    output('DashboardName', n.dashboard.dashboardName, 'CloudWatch dashboard');
    output('MetricsNamespace', n.metricsNamespace, "CloudWatch namespace of this notifier's own metrics");
  }
}
