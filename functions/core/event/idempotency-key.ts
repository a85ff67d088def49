import { createHash } from 'node:crypto';

/** The delivery channels a message can go out on. */
export const CHANNELS = ['email', 'sms', 'push'] as const;
export type Channel = (typeof CHANNELS)[number];

/** Bump when the key material changes; old and new keys then never collide. */
export const KEY_VERSION = 2;

/** Hex characters of a key that name its event's ledger partition (64 bits). */
export const EVENT_PART_LENGTH = 16;
/** Hex characters of a key in all: the event part, then the message part (192 bits). */
export const KEY_LENGTH = 64;

/** The four fields that identify one logical message, and nothing else. */
export interface MessageIdentity {
  /** The producer's id for the business event (never a transport id). */
  readonly eventId: string;
  readonly recipientId: string;
  readonly channel: Channel;
  readonly templateId: string;
}

/**
 * Deterministic idempotency key for one logical message: 64 lowercase hex characters (valid
 * verbatim as an SES message-tag value). The first 16 are {@link eventPartOf} the event id, so
 * every message of one event shares them and the ledger keeps an event's rows in one partition;
 * the other 48 are a SHA-256 of all four identity fields.
 *
 * The material is a JSON array, which encodes each field with its own quotes and
 * escapes, so ("ab","c") and ("a","bc") can never produce the same input.
 */
export function idempotencyKey(identity: MessageIdentity): string {
  const material = JSON.stringify([
    `notifier-key-v${KEY_VERSION}`,
    identity.eventId,
    identity.recipientId,
    identity.channel,
    identity.templateId,
  ]);
  const messagePart = createHash('sha256').update(material, 'utf8').digest('hex').slice(0, KEY_LENGTH - EVENT_PART_LENGTH);
  return eventPartOf(identity.eventId) + messagePart;
}

/**
 * The part of every key of one event that depends on the event id alone. Two events may share
 * it (64 bits): a reader of an event's rows filters on the event id itself.
 */
export function eventPartOf(eventId: string): string {
  const material = JSON.stringify([`notifier-event-v${KEY_VERSION}`, eventId]);
  return createHash('sha256').update(material, 'utf8').digest('hex').slice(0, EVENT_PART_LENGTH);
}

/**
 * Length of the short key: the event part and 8 characters of the message part. The messages of one event
 * share the event part, so a shorter prefix would show them all alike; 8 more characters (32 bits) tell an
 * event's at most 100 messages apart.
 */
export const SHORT_KEY_LENGTH = EVENT_PART_LENGTH + 8;

/**
 * The short key for logs and human output (the summary, the local pages, `notifier ledger`): the key's first
 * {@link SHORT_KEY_LENGTH} characters, so the full key starts with it. Non-reversible, never the whole key.
 */
export function keyPrefix(key: string): string {
  return key.slice(0, SHORT_KEY_LENGTH);
}
