import * as z from './schema';

// The envelopes an event reaches the queue in, field for field as @aws-lambda-powertools/parser 2.35
// validates them (`EventBridgeSchema`, `SnsSqsNotificationSchema`). Written here rather than imported:
// those schemas are built on classic zod, which would bring all of it (about 460 KB minified) into every bundle.

/** An EventBridge event (rule target). */
export const EventBridgeSchema = z.object({
  version: z.string(),
  id: z.string(),
  source: z.string(),
  account: z.string(),
  time: z.iso.datetime(),
  region: z.string(),
  resources: z.array(z.string()),
  'detail-type': z.string(),
  detail: z.unknown(),
  'replay-name': z.optional(z.string()),
});

const SnsMessageAttribute = z.object({ Type: z.string(), Value: z.string() });

/**
 * The fields every SNS notification carries, in SQS bodies and in Lambda SNS events alike, around the
 * URL fields that differ between the two (kept in Powertools' order, which is the order issues are listed in).
 */
export const SnsNotificationFields = {
  head: { Subject: z.nullish(z.string()), TopicArn: z.string() },
  tail: {
    Type: z.literal('Notification'),
    MessageAttributes: z.optional(z.record(z.string(), SnsMessageAttribute)),
    Message: z.string(),
    MessageId: z.string(),
    Signature: z.optional(z.string()),
    SignatureVersion: z.optional(z.string()),
    Timestamp: z.iso.datetime(),
  },
};

/** An SNS notification as an SQS subscription without raw message delivery writes it into the body. */
export const SnsSqsNotificationSchema = z.object({
  ...SnsNotificationFields.head,
  UnsubscribeURL: z.optional(z.string()),
  SigningCertURL: z.optional(z.url()),
  ...SnsNotificationFields.tail,
});
