import { DeleteItemCommand, DynamoDBClient, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lambdaContext, sqsEvent, sqsRecord } from '../support/sqs-event';

/** The cold-start baseline must do the job it stands in for, or its cold start proves nothing. */
const dynamo = mockClient(DynamoDBClient);
const ses = mockClient(SESv2Client);
const sns = mockClient(SNSClient);

type Handler = typeof import('../../bench/baseline/powertools-minimal-handler').handler;
let handler: Handler;

beforeAll(async () => {
  process.env.IDEMPOTENCY_TABLE_NAME = 'baseline-idempotency';
  process.env.EMAIL_FROM = 'orders@shop.example';
  ({ handler } = await import('../../bench/baseline/powertools-minimal-handler'));
});
afterAll(() => {
  dynamo.restore();
  ses.restore();
  sns.restore();
});
beforeEach(() => {
  for (const mock of [dynamo, ses, sns]) mock.reset();
  dynamo.on(PutItemCommand).resolves({});
  dynamo.on(UpdateItemCommand).resolves({});
  dynamo.on(DeleteItemCommand).resolves({});
  ses.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
  sns.on(PublishCommand).resolves({ MessageId: 'sns-1' });
});

const body = JSON.stringify({
  eventId: 'evt-baseline-1',
  templateId: 'order-shipped',
  data: { orderId: '1001' },
  recipients: [{ recipientId: 'buyer-17', email: 'buyer@example.com', phone: '+447700900123', channels: ['email', 'sms'] }],
});

describe('the Powertools baseline handler (bench/baseline)', () => {
  it('claims each message in the idempotency table, then sends the e-mail through SES and the SMS through SNS', async () => {
    const result = await handler(sqsEvent(sqsRecord(body, 'm-1')), lambdaContext());
    expect(result).toEqual({ batchItemFailures: [] });
    const claims = dynamo.commandCalls(PutItemCommand).map((c) => c.args[0].input);
    expect(claims).toHaveLength(2);
    expect(claims.every((c) => c.TableName === 'baseline-idempotency' && c.ConditionExpression !== undefined)).toBe(true);
    expect(dynamo.commandCalls(UpdateItemCommand)).toHaveLength(2);
    expect(ses.commandCalls(SendEmailCommand).map((c) => c.args[0].input)).toEqual([
      expect.objectContaining({ FromEmailAddress: 'orders@shop.example', Destination: { ToAddresses: ['buyer@example.com'] } }),
    ]);
    expect(sns.commandCalls(PublishCommand).map((c) => c.args[0].input.PhoneNumber)).toEqual(['+447700900123']);
  });

  it('fails only the record whose send failed, and releases its claim so a redelivery sends again', async () => {
    ses.on(SendEmailCommand).rejects(new Error('throttled'));
    const smsOnly = JSON.stringify({ ...JSON.parse(body), eventId: 'evt-baseline-2', recipients: [{ recipientId: 'r', phone: '+14155550101', channels: ['sms'] }] });
    const result = await handler(sqsEvent(sqsRecord(smsOnly, 'm-sms'), sqsRecord(body, 'm-email')), lambdaContext());
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'm-email' }] });
    expect(dynamo.commandCalls(DeleteItemCommand)).toHaveLength(1);
  });
});
