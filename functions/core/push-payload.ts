/**
 * Largest payload, in UTF-8 bytes, that a push platform accepts for one notification: APNs refuses a
 * regular remote notification over 4,096 bytes and FCM a message over 4,096 bytes. SNS itself would
 * take 256 KB, so the platform is the limit that bites, and it is checked against the payload below.
 */
export const PUSH_PAYLOAD_MAX_BYTES = 4096;

/** The per-platform payloads of one push, as SNS `Publish` with `MessageStructure: json` takes them. */
export interface PushPayloads {
  /** What SNS sends to a platform it has no entry for. */
  readonly default: string;
  readonly GCM: string;
  readonly APNS: string;
  readonly APNS_SANDBOX: string;
}

/**
 * The payload each platform receives: the notification's title and body, and our idempotency key
 * (so an app can drop a duplicate). Template validation measures exactly these strings.
 */
export function pushPayloads(title: string, body: string, key: string): PushPayloads {
  const notification = { title, body };
  const apns = JSON.stringify({ aps: { alert: notification }, idempotencyKey: key });
  return {
    default: body,
    GCM: JSON.stringify({ notification, data: { idempotencyKey: key } }),
    APNS: apns,
    APNS_SANDBOX: apns,
  };
}

/** UTF-8 size of the largest platform payload (the `default` text is not sent to a platform that has its own). */
export function largestPlatformPayloadBytes(payloads: PushPayloads): number {
  return Math.max(
    Buffer.byteLength(payloads.GCM, 'utf8'),
    Buffer.byteLength(payloads.APNS, 'utf8'),
    Buffer.byteLength(payloads.APNS_SANDBOX, 'utf8'),
  );
}
