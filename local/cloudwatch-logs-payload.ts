import { gzipSync } from 'node:zlib';

/** One log event: the line as SNS wrote it, and when (epoch ms). */
export interface LogLine {
  readonly message: string;
  readonly timestamp: number;
}

/**
 * The most an asynchronous Lambda invocation's payload may hold: "For asynchronous invocations, the maximum payload
 * size is 1 MB" (https://docs.aws.amazon.com/lambda/latest/dg/API_Invoke.html; raised from 256 KB in 2025,
 * https://aws.amazon.com/blogs/compute/more-room-to-build-serverless-services-now-support-payloads-up-to-1-mb).
 * A CloudWatch Logs subscription invokes its Lambda asynchronously, so this bounds each delivery; CloudWatch Logs
 * documents no smaller bound of its own for it. Read as 1,000,000 bytes, the smaller reading of "1 MB" (SQS states
 * its new limit as 1 MiB), so that nothing the stand-in sends is over what Lambda takes.
 */
export const ASYNC_INVOCATION_PAYLOAD_LIMIT_BYTES = 1_000_000;

/** SMS delivery-status log lines as a CloudWatch Logs subscription delivers them: base64 of gzip of the payload's JSON. */
export function cloudWatchLogsPayload(logs: readonly LogLine[]) {
  const payload = {
    messageType: 'DATA_MESSAGE',
    owner: '000000000000',
    logGroup: 'sns/local/000000000000/DirectPublishToPhoneNumber',
    logStream: 'local',
    subscriptionFilters: ['local'],
    logEvents: logs.map((l, i) => ({ id: String(i), ...l })),
  };
  return { awslogs: { data: gzipSync(Buffer.from(JSON.stringify(payload))).toString('base64') } };
}

/** An invocation payload's size as Lambda counts it: the bytes of the event's JSON. */
export function invocationPayloadBytes(event: unknown): number {
  return Buffer.byteLength(JSON.stringify(event));
}

/**
 * `lines` in order, cut into consecutive batches each of whose payload fits `limitBytes` (halved until it does:
 * gzip's size is not additive, so each half is measured again). A line too large for a payload of its own stays a
 * batch alone; Lambda refuses it.
 */
export function batchesWithinLimit(lines: readonly LogLine[], limitBytes: number = ASYNC_INVOCATION_PAYLOAD_LIMIT_BYTES): LogLine[][] {
  if (lines.length === 0) return [];
  if (lines.length === 1 || invocationPayloadBytes(cloudWatchLogsPayload(lines)) <= limitBytes) return [[...lines]];
  const half = Math.ceil(lines.length / 2);
  return [...batchesWithinLimit(lines.slice(0, half), limitBytes), ...batchesWithinLimit(lines.slice(half), limitBytes)];
}
