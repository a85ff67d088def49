import type * as events from 'aws-cdk-lib/aws-events';

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

/** Producers wired to the notifier by the construct: SNS topics and EventBridge rules. */
export interface ProducerProps {
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
}
