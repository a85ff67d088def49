import { gunzipSync } from 'node:zlib';
import * as v from 'valibot';
import { SnsNotificationFields } from '../core/event/event-envelopes';
import { jsonObject } from '../core/json-objects';
import { validate } from '../core/schema';
import { base64, urlString } from '../core/event/string-formats';

// The invocations the status Lambda takes, field for field as @aws-lambda-powertools/parser 2.35
// validates them (`SnsSchema`, `CloudWatchLogsSchema`). Written here rather than imported: those schemas
// are built on classic zod, which would bring all of it (about 460 KB minified) into the bundle.

/** A Lambda SNS event (SES configuration-set events through an SNS topic). */
export const SnsEventSchema = jsonObject({
  Records: v.pipe(
    v.array(
      jsonObject({
        EventSource: v.literal('aws:sns'),
        EventVersion: v.string(),
        EventSubscriptionArn: v.string(),
        Sns: jsonObject({
          ...SnsNotificationFields.head,
          UnsubscribeUrl: urlString(),
          UnsubscribeURL: v.optional(urlString()),
          SigningCertUrl: v.optional(urlString()),
          SigningCertURL: v.optional(urlString()),
          ...SnsNotificationFields.tail,
        }),
      }),
    ),
    v.minLength(1),
  ),
});

/** A Lambda SQS event (End User Messaging events through SNS and an SQS queue), the fields the status Lambda reads. */
export const SqsEventSchema = jsonObject({
  Records: v.pipe(
    v.array(jsonObject({ messageId: v.string(), body: v.string(), eventSource: v.literal('aws:sqs'), eventSourceARN: v.string() })),
    v.minLength(1),
  ),
});

const CloudWatchLogsPayloadSchema = jsonObject({
  awslogs: jsonObject({ data: v.pipe(v.string(), base64()) }),
});

const CloudWatchLogsDataSchema = jsonObject({
  messageType: v.string(),
  owner: v.string(),
  logGroup: v.string(),
  logStream: v.string(),
  subscriptionFilters: v.array(v.string()),
  logEvents: v.pipe(v.array(jsonObject({ id: v.string(), timestamp: v.number(), message: v.string() })), v.minLength(1)),
});

/** The decompressed content of a CloudWatch Logs subscription delivery. */
export type CloudWatchLogsData = v.InferOutput<typeof CloudWatchLogsDataSchema>;

/**
 * Decodes a CloudWatch Logs subscription invocation (`awslogs.data`: base64 of gzipped JSON).
 * @returns the payload, or `undefined` when the input is not one or cannot be decoded.
 */
export function decodeCloudWatchLogs(input: unknown): CloudWatchLogsData | undefined {
  const envelope = validate(CloudWatchLogsPayloadSchema, input);
  if (!envelope.success) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(gunzipSync(Buffer.from(envelope.output.awslogs.data, 'base64')).toString('utf8'));
  } catch {
    return undefined;
  }
  const data = validate(CloudWatchLogsDataSchema, json);
  return data.success ? data.output : undefined;
}
