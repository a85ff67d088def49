import { KEY_LENGTH } from './idempotency-key';
import { PUSH_PRIORITIES, pushLifetimeSeconds, type PushPolicy, type PushPriority } from './push-policy';

/**
 * Largest payload, in UTF-8 bytes, that a push platform accepts for one notification: APNs refuses a
 * regular remote notification over 4,096 bytes and FCM a message over 4,096 bytes. SNS itself would
 * take 256 KB, so the platform is the limit that bites, and it is checked against the payload below.
 */
export const PUSH_PAYLOAD_MAX_BYTES = 4096;

/** APNs refuses an `apns-collapse-id` over 64 bytes; our key is 64 ASCII hex characters, so it is the id as it is. */
export const APNS_COLLAPSE_ID_MAX_BYTES = 64;

/** The per-platform payloads of one push, as SNS `Publish` with `MessageStructure: json` takes them. */
export interface PushPayloads {
  /** What SNS sends to a platform it has no entry for. */
  readonly default: string;
  readonly GCM: string;
  readonly APNS: string;
  readonly APNS_SANDBOX: string;
}

/** What one push shows and the identity and priority it goes out with. */
export interface PushContent {
  readonly title: string;
  readonly body: string;
  /** The idempotency key: the collapse id and tag, the same for every attempt of one message. */
  readonly key: string;
  readonly priority: PushPriority;
}

const APNS_PRIORITY: Readonly<Record<PushPriority, string>> = { high: '10', normal: '5' };

/**
 * The payload each platform receives: the notification's title and body, our idempotency key in the
 * data (so an app's own code can drop a duplicate), and, for FCM, the key as the Android notification
 * `tag`: a notification with the tag of one already shown replaces it, so a resend is shown once.
 * FCM gets the HTTP v1 format (`fcmV1Message`, the API SNS calls since FCM's legacy API was shut
 * down), with the APNs collapse id and priority in its `apns` headers for iOS apps that FCM serves.
 * `collapse_key` is not set: FCM ignores it for notification messages, and it keeps only four keys
 * per device, so distinct messages could be dropped. Template validation measures exactly these strings.
 */
export function pushPayloads({ title, body, key, priority }: PushContent): PushPayloads {
  const notification = { title, body };
  const apns = JSON.stringify({ aps: { alert: notification }, idempotencyKey: key });
  const fcmMessage = {
    notification,
    data: { idempotencyKey: key },
    android: { priority, notification: { tag: key } },
    apns: { headers: { 'apns-collapse-id': key, 'apns-priority': APNS_PRIORITY[priority] } },
  };
  return {
    default: body,
    GCM: JSON.stringify({ fcmV1Message: { message: fcmMessage } }),
    APNS: apns,
    APNS_SANDBOX: apns,
  };
}

/**
 * SNS's reserved message attributes for one push (names from the SNS developer guide): the key as
 * the APNs collapse id, the APNs priority and push type, and the lifetime for every platform. SNS
 * applies the attributes of the endpoint's platform and ignores the others (a topic fans one publish
 * out to every platform), and a TTL attribute outranks one in the payload.
 */
export function pushAttributes(key: string, policy: PushPolicy, validForSeconds: number | undefined): Readonly<Record<string, string>> {
  const ttl = String(pushLifetimeSeconds(policy, validForSeconds));
  return {
    'AWS.SNS.MOBILE.APNS.COLLAPSE_ID': key,
    'AWS.SNS.MOBILE.APNS.PRIORITY': APNS_PRIORITY[policy.priority],
    // Every push we build shows an alert, and APNs wants the type to match the payload: never per class.
    'AWS.SNS.MOBILE.APNS.PUSH_TYPE': 'alert',
    'AWS.SNS.MOBILE.APNS.TTL': ttl,
    'AWS.SNS.MOBILE.APNS_SANDBOX.TTL': ttl,
    'AWS.SNS.MOBILE.FCM.TTL': ttl,
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

/** The largest platform payload a push with this title and body can be, whatever its class's priority. */
export function largestPushPayloadBytes(title: string, body: string): number {
  const key = 'f'.repeat(KEY_LENGTH);
  return Math.max(...PUSH_PRIORITIES.map((priority) => largestPlatformPayloadBytes(pushPayloads({ title, body, key, priority }))));
}
