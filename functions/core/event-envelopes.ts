import * as v from 'valibot';
import { jsonObject, jsonRecord } from './json-objects';
import { isoDatetime, urlString } from './string-formats';

// The envelopes an event reaches the queue in, field for field as @aws-lambda-powertools/parser 2.35
// validates them (`EventBridgeSchema`, `SnsSqsNotificationSchema`). Written here rather than imported:
// those schemas are built on classic zod, which would bring all of it (about 460 KB minified) into every bundle.

/** An EventBridge event (rule target). */
export const EventBridgeSchema = jsonObject({
  version: v.string(),
  id: v.string(),
  source: v.string(),
  account: v.string(),
  time: v.pipe(v.string(), isoDatetime()),
  region: v.string(),
  resources: v.array(v.string()),
  'detail-type': v.string(),
  detail: v.unknown(),
  'replay-name': v.optional(v.string()),
});

const SnsMessageAttribute = jsonObject({ Type: v.string(), Value: v.string() });

/**
 * The fields every SNS notification carries, in SQS bodies and in Lambda SNS events alike, around the
 * URL fields that differ between the two (kept in Powertools' order, which is the order issues are listed in).
 */
export const SnsNotificationFields = {
  head: { Subject: v.nullish(v.string()), TopicArn: v.string() },
  tail: {
    Type: v.literal('Notification'),
    MessageAttributes: v.optional(jsonRecord(v.string(), SnsMessageAttribute)),
    Message: v.string(),
    MessageId: v.string(),
    Signature: v.optional(v.string()),
    SignatureVersion: v.optional(v.string()),
    Timestamp: v.pipe(v.string(), isoDatetime()),
  },
};

/** An SNS notification as an SQS subscription without raw message delivery writes it into the body. */
export const SnsSqsNotificationSchema = jsonObject({
  ...SnsNotificationFields.head,
  UnsubscribeURL: v.optional(v.string()),
  SigningCertURL: v.optional(urlString()),
  ...SnsNotificationFields.tail,
});
