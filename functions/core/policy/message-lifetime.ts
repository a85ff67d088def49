import type { MessageClass } from './message-class';
import type { RenderedMessage } from '../templates/rendered-message';

/**
 * The shortest lifetime each channel's provider takes: End User Messaging's `TimeToLive` is 5 to 259,200 seconds
 * (SendTextMessage, API reference); a push TTL of 1 second is the shortest that still means "keep trying".
 */
export const MIN_LIFETIME_SECONDS = { push: 1, sms: 5 } as const;

/** How much of a message's lifetime is left when it is about to be sent. */
export type LifetimeLeft =
  /** The message has no lifetime here (e-mail; a text whose provider keeps none, or whose class sets none). */
  | { readonly kind: 'none' }
  /** Seconds still worth trying: the push TTL, End User Messaging's `TimeToLive`. */
  | { readonly kind: 'left'; readonly seconds: number }
  /** Its lifetime ran out (or less than the provider takes is left): never sent. */
  | { readonly kind: 'expired'; readonly lifetimeSeconds: number; readonly ageSeconds: number };

/** What {@link lifetimeLeft} weighs. */
export interface LifetimeQuestion {
  readonly message: RenderedMessage;
  readonly messageClass: Pick<MessageClass, 'push' | 'smsTimeToLiveSeconds'>;
  /** The event's `occurredAt` (epoch ms): a code's validity runs from its issue, not from our send. */
  readonly occurredAtMs: number;
  readonly nowMs: number;
  /** Whether the text's provider drops a text not handed off within a time to live (End User Messaging). */
  readonly smsTimeToLive: boolean;
}

/**
 * A message's lifetime counted from the event, not from the send (review defect 6): a 10-minute code whose event
 * came two hours ago (throttled, held, resent by the reclaimer) was published with a TTL of 600 s, and a phone that
 * came online showed a code that had expired 110 minutes before. A push lives `validForSeconds` (the code's own
 * validity) or its class's `push.lifetimeSeconds`; a text through a provider that keeps a time to live, its class's
 * `smsTimeToLiveSeconds`. A lifetime of 0 is the push platforms' "now or never", which no age shortens. An event
 * stamped ahead of our clock (within the allowed skew) has aged nothing yet. Pure.
 */
export function lifetimeLeft({ message, messageClass, occurredAtMs, nowMs, smsTimeToLive }: LifetimeQuestion): LifetimeLeft {
  const lifetime =
    message.channel === 'push'
      ? (message.validForSeconds ?? messageClass.push.lifetimeSeconds)
      : message.channel === 'sms' && smsTimeToLive
        ? messageClass.smsTimeToLiveSeconds
        : undefined;
  if (lifetime === undefined || !Number.isFinite(occurredAtMs)) return { kind: 'none' };
  if (lifetime === 0) return { kind: 'left', seconds: 0 };
  const ageMs = Math.max(0, nowMs - occurredAtMs);
  const seconds = Math.floor((lifetime * 1000 - ageMs) / 1000);
  if (seconds < MIN_LIFETIME_SECONDS[message.channel as 'push' | 'sms']) return { kind: 'expired', lifetimeSeconds: lifetime, ageSeconds: Math.floor(ageMs / 1000) };
  return { kind: 'left', seconds };
}
