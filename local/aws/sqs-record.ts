import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSMessageAttribute, SQSRecord } from 'aws-lambda';

/**
 * An SQS `ReceiveMessage` message as Lambda's SQS event source hands it to a function: the
 * system attributes as strings (ApproximateReceiveCount, SentTimestamp, ...), message attributes
 * in Lambda's lower-camel shape with binary values base64-encoded, and the queue's ARN and region.
 */
export function toSqsRecord(message: Message, queueArn: string, awsRegion: string): SQSRecord {
  if (!message.MessageId || !message.ReceiptHandle) throw new Error('SQS returned a message without MessageId or ReceiptHandle');
  const system = message.Attributes ?? {};
  return {
    messageId: message.MessageId,
    receiptHandle: message.ReceiptHandle,
    body: message.Body ?? '',
    attributes: {
      ...system,
      ApproximateReceiveCount: system.ApproximateReceiveCount ?? '1',
      SentTimestamp: system.SentTimestamp ?? '',
      SenderId: system.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: system.ApproximateFirstReceiveTimestamp ?? '',
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, toLambdaAttribute(value)]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion,
  };
}

function toLambdaAttribute(value: MessageAttributeValue): SQSMessageAttribute {
  return {
    dataType: value.DataType ?? 'String',
    ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
    ...(value.BinaryValue !== undefined ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') } : {}),
    stringListValues: [],
    binaryListValues: [],
  };
}

/** How many times SQS has handed this record out, this time included. */
export function receiveCount(record: SQSRecord): number {
  return Number(record.attributes.ApproximateReceiveCount) || 1;
}
