import { gunzipSync } from 'node:zlib';
import { SnsNotificationFields } from '../core/event-envelopes';
import * as z from '../core/schema';

// The invocations the status Lambda takes, field for field as @aws-lambda-powertools/parser 2.35
// validates them (`SnsSchema`, `CloudWatchLogsSchema`). Written here rather than imported: those schemas
// are built on classic zod, which would bring all of it (about 460 KB minified) into the bundle.

/** A Lambda SNS event (SES configuration-set events through an SNS topic). */
export const SnsEventSchema = z.object({
  Records: z
    .array(
      z.object({
        EventSource: z.literal('aws:sns'),
        EventVersion: z.string(),
        EventSubscriptionArn: z.string(),
        Sns: z.object({
          ...SnsNotificationFields.head,
          UnsubscribeUrl: z.url(),
          UnsubscribeURL: z.optional(z.url()),
          SigningCertUrl: z.optional(z.url()),
          SigningCertURL: z.optional(z.url()),
          ...SnsNotificationFields.tail,
        }),
      }),
    )
    .check(z.minLength(1)),
});

const CloudWatchLogsPayloadSchema = z.object({
  awslogs: z.object({ data: z.base64() }),
});

const CloudWatchLogsDataSchema = z.object({
  messageType: z.string(),
  owner: z.string(),
  logGroup: z.string(),
  logStream: z.string(),
  subscriptionFilters: z.array(z.string()),
  logEvents: z.array(z.object({ id: z.string(), timestamp: z.number(), message: z.string() })).check(z.minLength(1)),
});

/** The decompressed content of a CloudWatch Logs subscription delivery. */
export type CloudWatchLogsData = z.infer<typeof CloudWatchLogsDataSchema>;

/**
 * Decodes a CloudWatch Logs subscription invocation (`awslogs.data`: base64 of gzipped JSON).
 * @returns the payload, or `undefined` when the input is not one or cannot be decoded.
 */
export function decodeCloudWatchLogs(input: unknown): CloudWatchLogsData | undefined {
  const envelope = CloudWatchLogsPayloadSchema.safeParse(input);
  if (!envelope.success) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(gunzipSync(Buffer.from(envelope.data.awslogs.data, 'base64')).toString('utf8'));
  } catch {
    return undefined;
  }
  const data = CloudWatchLogsDataSchema.safeParse(json);
  return data.success ? data.data : undefined;
}
