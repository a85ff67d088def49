import * as v from 'valibot';
import { jsonObject, jsonRecord } from '../json-objects';
import { isoDatetime, urlString, wellFormed, wellFormedString } from './string-formats';

// The envelopes an event reaches the queue in, field for field as @aws-lambda-powertools/parser 2.35
// validates them (`EventBridgeSchema`, `SnsSqsNotificationSchema`). Written here rather than imported:
// those schemas are built on classic zod, which would bring all of it (about 460 KB minified) into every bundle.
// One addition: every string is well-formed Unicode (a wrapper field is producer text like the event's own).

/** An EventBridge event (rule target). */
export const EventBridgeSchema = jsonObject({
  version: wellFormedString(),
  id: wellFormedString(),
  source: wellFormedString(),
  account: wellFormedString(),
  time: v.pipe(wellFormedString(), isoDatetime()),
  region: wellFormedString(),
  resources: v.array(wellFormedString()),
  'detail-type': wellFormedString(),
  detail: v.unknown(),
  'replay-name': v.optional(wellFormedString()),
});

const SnsMessageAttribute = jsonObject({ Type: wellFormedString(), Value: wellFormedString() });

/**
 * The fields every SNS notification carries, in SQS bodies and in Lambda SNS events alike, around the
 * URL fields that differ between the two (kept in Powertools' order, which is the order issues are listed in).
 */
export const SnsNotificationFields = {
  head: { Subject: v.nullish(wellFormedString()), TopicArn: wellFormedString() },
  tail: {
    Type: v.literal('Notification'),
    MessageAttributes: v.optional(jsonRecord(wellFormedString(), SnsMessageAttribute)),
    Message: wellFormedString(),
    MessageId: wellFormedString(),
    Signature: v.optional(wellFormedString()),
    SignatureVersion: v.optional(wellFormedString()),
    Timestamp: v.pipe(wellFormedString(), isoDatetime()),
  },
};

/** An SNS notification as an SQS subscription without raw message delivery writes it into the body. */
export const SnsSqsNotificationSchema = jsonObject({
  ...SnsNotificationFields.head,
  UnsubscribeURL: v.optional(wellFormedString()),
  SigningCertURL: v.optional(v.pipe(urlString(), wellFormed())),
  ...SnsNotificationFields.tail,
});
