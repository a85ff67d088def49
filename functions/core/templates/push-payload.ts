import { KEY_LENGTH } from '../event/idempotency-key';
import type { PushPolicy, PushPriority } from './push-policy';

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
 * down). `collapse_key` is not set: FCM ignores it for notification messages, and it keeps only four
 * keys per device, so distinct messages could be dropped. For an iOS app that FCM serves, the key goes
 * to APNs as `apns-collapse-id` in the message's `apns.headers`, with the class's APNs priority.
 * Template validation measures exactly these strings.
 */
export function pushPayloads({ title, body, key, priority }: PushContent): PushPayloads {
  const notification = { title, body };
  const apns = JSON.stringify({ aps: { alert: notification }, idempotencyKey: key });
  const fcmMessage = {
    notification,
    data: { idempotencyKey: key },
    android: { priority, notification: { tag: key } },
    // An iOS app served through FCM: FCM hands these headers to APNs.
    apns: { headers: { 'apns-collapse-id': key, 'apns-priority': APNS_PRIORITY[priority] } },
  };
  return {
    default: body,
    GCM: JSON.stringify({ fcmV1Message: { message: fcmMessage } }),
    APNS: apns,
    APNS_SANDBOX: apns,
  };
}

/** One SNS message attribute of type String, as `Publish` takes it. */
export interface SnsStringAttribute {
  readonly DataType: 'String';
  readonly StringValue: string;
}

/**
 * SNS's reserved message attributes for one push (names from the SNS developer guide): the key as
 * the APNs collapse id, the APNs priority and push type, and the lifetime for every platform: the
 * content's own validity when known (a sign-in code's), else the class's. SNS applies the attributes
 * of the endpoint's platform and ignores the others (a topic fans one publish out to every platform),
 * and a TTL attribute outranks one in the payload. `lifetimeLeftSeconds`, when the send gate counted it from the
 * event (message-lifetime.ts), is what is left of that lifetime, and is the TTL.
 */
export function pushAttributes(
  key: string,
  policy: PushPolicy,
  validForSeconds: number | undefined,
  lifetimeLeftSeconds?: number,
): Readonly<Record<string, SnsStringAttribute>> {
  const text = (StringValue: string): SnsStringAttribute => ({ DataType: 'String', StringValue });
  const ttl = text(String(lifetimeLeftSeconds ?? validForSeconds ?? policy.lifetimeSeconds));
  // One prefix: each name costs the sender's bundle once (AWS.SNS.MOBILE.APNS.COLLAPSE_ID, ...).
  const apns = 'AWS.SNS.MOBILE.APNS';
  return {
    [`${apns}.COLLAPSE_ID`]: text(key),
    [`${apns}.PRIORITY`]: text(APNS_PRIORITY[policy.priority]),
    // Every push we build shows an alert, and APNs wants the type to match the payload: never per class.
    [`${apns}.PUSH_TYPE`]: text('alert'),
    [`${apns}.TTL`]: ttl,
    [`${apns}_SANDBOX.TTL`]: ttl,
    'AWS.SNS.MOBILE.FCM.TTL': ttl,
  };
}

/**
 * UTF-8 size of the largest platform payload (the `default` text is not sent to a platform that has its
 * own; APNS_SANDBOX is the APNS payload).
 */
export function largestPlatformPayloadBytes(payloads: PushPayloads): number {
  return Math.max(Buffer.byteLength(payloads.GCM), Buffer.byteLength(payloads.APNS));
}

/**
 * The largest platform payload a push with this title and body can be, whatever its class: priority
 * `normal` ("normal" / "5") is one byte longer than `high` ("high" / "10").
 */
export function largestPushPayloadBytes(title: string, body: string): number {
  return largestPlatformPayloadBytes(pushPayloads({ title, body, key: 'f'.repeat(KEY_LENGTH), priority: 'normal' }));
}
