import { createHash } from 'node:crypto';

/** The delivery channels a message can go out on. */
export const CHANNELS = ['email', 'sms', 'push'] as const;
export type Channel = (typeof CHANNELS)[number];

/** Bump when the key material changes; old and new keys then never collide. */
export const KEY_VERSION = 1;

/** The four fields that identify one logical message, and nothing else. */
export interface MessageIdentity {
  /** The producer's id for the business event (never a transport id). */
  readonly eventId: string;
  readonly recipientId: string;
  readonly channel: Channel;
  readonly templateId: string;
}

/**
 * Deterministic idempotency key for one logical message: lowercase hex SHA-256
 * (64 characters, valid verbatim as an SES message-tag value).
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
  return createHash('sha256').update(material, 'utf8').digest('hex');
}

/** Short, non-reversible prefix of a key for logs and human output. */
export function keyPrefix(key: string): string {
  return key.slice(0, 12);
}
