/**
 * Pushes as the devices would show them: SNS accepted every publish, and each was billed and woke the
 * device, but a platform shows one notification per collapse identity. APNs merges notifications with
 * the same `apns-collapse-id` (SNS takes it from `AWS.SNS.MOBILE.APNS.COLLAPSE_ID`); Android replaces
 * a shown notification with the same `tag` (FCM v1 `android.notification.tag`, or the legacy
 * payload's `notification.tag`). A push without either is shown once per delivery.
 */

/** One Publish the local SNS server accepted, as this view reads it (the server adds its MessageId). */
export interface SnsPublish {
  /** 'sms' for PhoneNumber, 'push' for a platform endpoint TargetArn. */
  readonly channel: 'sms' | 'push';
  /** The string value of the idempotency key attribute; undefined when absent. */
  readonly key: string | undefined;
  /** The phone number or the endpoint ARN. */
  readonly target: string;
  readonly message: string;
  readonly messageStructure: string | undefined;
  /** Message attributes' string values by name (AWS.SNS.SMS.SMSType, AWS.SNS.MOBILE.APNS.COLLAPSE_ID, ...). */
  readonly attributes: Readonly<Record<string, string>>;
  /** Milliseconds since the epoch. */
  readonly acceptedAt: number;
}

/** One notification on one device, after every collapse. */
export interface ShownPush {
  readonly target: string;
  /** The endpoint's platform, from its ARN (`APNS`, `APNS_SANDBOX`, `GCM`, ...). */
  readonly platform: string;
  /** The collapse id (APNs) or tag (FCM) the device merged on; undefined: the push had none. */
  readonly collapseId: string | undefined;
  /** The latest delivery's title and body: what the device shows. */
  readonly title: string;
  readonly body: string;
  /** Publishes shown as this one notification; more than 1: it was replaced. */
  readonly deliveries: number;
  /** The idempotency keys those publishes carried, each once. */
  readonly keys: readonly string[];
  readonly lastAt: number;
}

const PLATFORM = /:endpoint\/([A-Z_]+)\//;

/** Every push publish as the devices show it, in the order each notification first appeared. */
export function shownPushes(published: readonly SnsPublish[]): ShownPush[] {
  const shown = new Map<string, { -readonly [K in keyof ShownPush]: ShownPush[K] }>();
  published.forEach((publish, index) => {
    if (publish.channel !== 'push') return;
    const platform = PLATFORM.exec(publish.target)?.[1] ?? 'unknown';
    const payload = platformPayload(publish, platform);
    const collapseId = platform.startsWith('APNS') ? publish.attributes['AWS.SNS.MOBILE.APNS.COLLAPSE_ID'] : payload.tag;
    const slot = collapseId === undefined ? `#${index}` : `${publish.target} ${collapseId}`;
    const entry = shown.get(slot);
    const keys = publish.key === undefined ? [] : [publish.key];
    if (!entry) {
      shown.set(slot, { target: publish.target, platform, collapseId, title: payload.title, body: payload.body, deliveries: 1, keys, lastAt: publish.acceptedAt });
      return;
    }
    Object.assign(entry, { title: payload.title, body: payload.body, deliveries: entry.deliveries + 1, lastAt: publish.acceptedAt });
    entry.keys = [...new Set([...entry.keys, ...keys])];
  });
  return [...shown.values()];
}

/** Push duplicates two ways: as the provider accepted them, and as people would see them. */
export interface PushDuplicateCounts {
  /** Accepted push publishes beyond the first of each key: each billed, each waking a device. */
  readonly providerSide: number;
  /** Notifications beyond the first shown for one key: a resend the platform did not merge. */
  readonly deviceVisible: number;
  /** Messages no longer shown because another message's push took their collapse id (0 unless ids are shared). */
  readonly hiddenByOtherMessages: number;
}

export function pushDuplicateCounts(published: readonly SnsPublish[]): PushDuplicateCounts {
  const perKey = new Map<string, number>();
  for (const publish of published) {
    if (publish.channel === 'push' && publish.key !== undefined) perKey.set(publish.key, (perKey.get(publish.key) ?? 0) + 1);
  }
  const shown = shownPushes(published);
  const shownPerKey = new Map<string, number>();
  for (const push of shown) for (const key of push.keys) shownPerKey.set(key, (shownPerKey.get(key) ?? 0) + 1);
  const sumBeyondFirst = (counts: Iterable<number>) => [...counts].reduce((sum, n) => sum + n - 1, 0);
  return {
    providerSide: sumBeyondFirst(perKey.values()),
    deviceVisible: sumBeyondFirst(shownPerKey.values()),
    hiddenByOtherMessages: shown.reduce((sum, push) => sum + Math.max(0, push.keys.length - 1), 0),
  };
}

/** The title, body and FCM tag the endpoint's platform gets, read from its entry of a JSON message. */
function platformPayload(publish: SnsPublish, platform: string): { title: string; body: string; tag: string | undefined } {
  if (publish.messageStructure !== 'json') return { title: '', body: publish.message, tag: undefined };
  const message = parseObject(publish.message);
  const fallback = { title: '', body: stringAt(message, ['default']) ?? '', tag: undefined };
  const entry = stringAt(message, [platform]);
  if (entry === undefined) return fallback;
  const payload = parseObject(entry);
  if (platform.startsWith('APNS')) {
    return { title: stringAt(payload, ['aps', 'alert', 'title']) ?? '', body: stringAt(payload, ['aps', 'alert', 'body']) ?? fallback.body, tag: undefined };
  }
  const v1 = ['fcmV1Message', 'message'];
  if (stringAt(payload, [...v1, 'notification', 'body']) !== undefined || stringAt(payload, [...v1, 'android', 'notification', 'tag']) !== undefined) {
    return {
      title: stringAt(payload, [...v1, 'notification', 'title']) ?? '',
      body: stringAt(payload, [...v1, 'notification', 'body']) ?? fallback.body,
      tag: stringAt(payload, [...v1, 'android', 'notification', 'tag']),
    };
  }
  return {
    title: stringAt(payload, ['notification', 'title']) ?? '',
    body: stringAt(payload, ['notification', 'body']) ?? fallback.body,
    tag: stringAt(payload, ['notification', 'tag']),
  };
}

function parseObject(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function stringAt(value: unknown, path: readonly string[]): string | undefined {
  let at = value;
  for (const name of path) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[name];
  }
  return typeof at === 'string' ? at : undefined;
}
