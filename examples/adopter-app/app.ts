// An app that uses the notifier the way an adopter does: the construct comes from the `idempotent-notifier`
// package (never from this repository's lib/), next to the app's own resources.
import { App, CfnOutput, Stack } from 'aws-cdk-lib';
import * as sns from 'aws-cdk-lib/aws-sns';
import { IdempotentNotifier } from 'idempotent-notifier';

const app = new App();
const emailFrom: unknown = app.node.tryGetContext('emailFrom');
if (typeof emailFrom !== 'string' || emailFrom === '') {
  throw new Error('Set the From address: -c emailFrom="Shop <notifications@mail.your-shop.com>" (or in cdk.json)');
}

const stack = new Stack(app, 'ShopNotifications', {
  description: 'A shop that sends order e-mails and SMS through the idempotent notifier',
});

// The shop's existing producer: order events published to a topic.
const orderEvents = new sns.Topic(stack, 'OrderEvents', { enforceSSL: true });

const notifier = new IdempotentNotifier(stack, 'Notifier', {
  emailFrom,
  alarms: { emails: ['oncall@mail.acme-notifier.dev'] },
  // Order e-mails only: no SMS (which would need smsMonthlySpendLimitUsd) and no mobile push in this shop.
  smsEnabled: false,
  pushEnabled: false,
});
notifier.subscribeToTopic(orderEvents);

new CfnOutput(stack, 'NotificationQueueUrl', { value: notifier.queue.queueUrl });
new CfnOutput(stack, 'OrderEventsTopicArn', { value: orderEvents.topicArn });
app.synth();
