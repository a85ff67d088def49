import { randomUUID } from 'node:crypto';

/** An SES event as the SNS record of an event destination's topic carries it. */
export function snsEnvelope(event: Record<string, unknown>) {
  return {
    EventSource: 'aws:sns',
    EventVersion: '1.0',
    EventSubscriptionArn: 'arn:aws:sns:us-east-1:000000000000:ses-events:local',
    Sns: {
      Type: 'Notification',
      MessageId: randomUUID(),
      TopicArn: 'arn:aws:sns:us-east-1:000000000000:ses-events',
      Message: JSON.stringify(event),
      Timestamp: new Date().toISOString(),
      SignatureVersion: '1',
      Signature: 'local',
      SigningCertUrl: 'https://sns.invalid/local.pem',
      UnsubscribeUrl: 'https://sns.invalid/unsubscribe',
      MessageAttributes: {},
    },
  };
}
