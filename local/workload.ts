import type { NotificationEvent, Recipient } from '../functions/core/event/notification-event';
import { mulberry32, pickWeighted } from './prng';

/** What to generate. */
export interface WorkloadOptions {
  /** Queue messages to inject in total, duplicates included. */
  readonly messages: number;
  /** Share of injected messages that repeat an earlier event (0..1). @default 0.3 */
  readonly duplicateRate?: number;
  readonly seed: number;
  /** Share of recipients with an unusable address (a planned FAILED, never sent). @default 0.02 */
  readonly badAddressRate?: number;
  /** Events occurred shortly before this time. @default Date.now() */
  readonly now?: number;
}

/** One queue message to inject. */
export interface WorkloadItem {
  readonly body: string;
  readonly eventId: string;
  readonly messageClass: string;
  /** A repeat of an event injected earlier (a producer retry or broker redelivery). */
  readonly duplicate: boolean;
}

/** Queue-side facts about one injected message, for the report. */
export type MessageMeta = Pick<WorkloadItem, 'eventId' | 'messageClass' | 'duplicate'>;

export interface Workload {
  readonly items: readonly WorkloadItem[];
  /** Each distinct event once. */
  readonly events: readonly NotificationEvent[];
}

type Kind = 'order-shipped' | 'order-sold' | 'login-code' | 'weekly-offers';
const KINDS: ReadonlyArray<readonly [Kind, number]> = [
  ['order-shipped', 40],
  ['order-sold', 15],
  ['login-code', 30],
  ['weekly-offers', 15],
];

/**
 * A reproducible stream of order-platform events: shipped orders to buyers on one to three
 * channels, sold items to sellers, sign-in codes, and marketing to a few recipients, with
 * duplicates placed both right behind their original (so they race) and much later. A quarter of the
 * buyers name `fallback: ["push", "email"]` and a quarter of the sign-in codes `["sms", "email"]`
 * (docs/design/fallback.md): the next channel only when the one before certainly did not arrive.
 */
export function generateWorkload(options: WorkloadOptions): Workload {
  const random = mulberry32(options.seed);
  const duplicateRate = options.duplicateRate ?? 0.3;
  const duplicates = Math.round(options.messages * duplicateRate);
  const unique = Math.max(1, options.messages - duplicates);
  const now = options.now ?? Date.now();
  const bad = options.badAddressRate ?? 0.02;

  const events = Array.from({ length: unique }, (_, i) => makeEvent(i, random, now, bad, options.seed));
  const placed: { at: number; item: WorkloadItem }[] = events.map((event, i) => ({ at: i, item: itemOf(event, false) }));
  for (let d = 0; d < duplicates; d += 1) {
    const source = Math.floor(random() * unique);
    const event = events[source];
    if (!event) continue;
    const near = random() < 0.5;
    const offset = near ? random() * 3 : 3 + random() * 200;
    placed.push({ at: source + offset + 0.001, item: itemOf(event, true) });
  }
  placed.sort((a, b) => a.at - b.at);
  return { items: placed.map((p) => p.item), events };
}

/** 70% of sign-in codes by SMS, 15% by e-mail, 15% by push: one draw, so the stream of random numbers is as before push codes. */
function codeChannel(draw: number): Recipient['channels'][number] {
  if (draw < 0.7) return 'sms';
  return draw < 0.85 ? 'email' : 'push';
}

function itemOf(event: NotificationEvent, duplicate: boolean): WorkloadItem {
  return { body: JSON.stringify(event), eventId: event.eventId, messageClass: event.messageClass, duplicate };
}

function makeEvent(i: number, random: () => number, now: number, bad: number, seed: number): NotificationEvent {
  const kind = pickWeighted(random, KINDS);
  const occurredAt = new Date(now - Math.floor(random() * 60_000)).toISOString();
  const eventId = `evt-${seed}-${i}-${kind}`;
  const order = String(100_000 + Math.floor(random() * 900_000));
  // `chain`: the recipient's fallback list, taken by every fourth person (by their number: no extra draw, so the
  // stream of random numbers is as before fallback); its channels leave `channels`.
  const person = (role: string, channels: Recipient['channels'], chain?: NonNullable<Recipient['fallback']>): Recipient => {
    const n = Math.floor(random() * 100_000);
    const unusable = random() < bad;
    const fallback = chain && n % 4 === 1 ? chain : undefined;
    return {
      recipientId: `${role}-${n}`,
      email: `${role}${n}@example.com`,
      // Spread over 8,000 number blocks (the number without its last 3 digits), as real users are.
      phone: unusable ? '555-CALL-ME' : `+1415${200 + (n % 800)}${String(Math.floor(n / 800) % 10_000).padStart(4, '0')}`,
      // A third of the devices are iPhones: APNs merges a resend by its collapse id attribute, Android by its FCM tag.
      pushEndpointArn: `arn:aws:sns:us-east-1:123456789012:endpoint/${n % 3 === 0 ? 'APNS' : 'GCM'}/shop-app/${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`,
      channels: fallback ? (channels ?? []).filter((channel) => !fallback.includes(channel)) : channels,
      ...(fallback ? { fallback } : {}),
    };
  };
  const someOf = (all: Recipient['channels']): Recipient['channels'] => {
    const chosen = all.filter(() => random() < 0.6);
    return chosen.length > 0 ? chosen : [all[0] ?? 'email'];
  };
  const base = { eventId, occurredAt };
  switch (kind) {
    case 'order-shipped':
      return {
        ...base,
        type: 'OrderShipped',
        templateId: 'order-shipped',
        messageClass: 'transactional',
        data: { orderId: order, carrier: random() < 0.5 ? 'DHL' : 'UPS', trackingNumber: `TRK${order}` },
        recipients: [person('buyer', someOf(['email', 'sms', 'push']), ['push', 'email'])],
      };
    case 'order-sold':
      return {
        ...base,
        type: 'OrderSold',
        templateId: 'order-sold',
        messageClass: 'transactional',
        data: { orderId: order, itemId: `item-${order.slice(0, 4)}`, shipWithinDays: 3 },
        recipients: [person('seller', someOf(['email', 'push']))],
      };
    case 'login-code':
      return {
        ...base,
        type: 'LoginCodeRequested',
        templateId: 'login-code',
        messageClass: 'otp',
        data: { code: String(100_000 + Math.floor(random() * 900_000)), expiresInMinutes: 10 },
        recipients: [person('user', [codeChannel(random())], ['sms', 'email'])],
      };
    case 'weekly-offers': {
      const count = 1 + Math.floor(random() * 3);
      const recipients = Array.from({ length: count }, (_, r) => ({ ...person('member', someOf(['email', 'push'])), recipientId: `member-${i}-${r}` }));
      return {
        ...base,
        type: 'WeeklyOffers',
        templateId: 'weekly-offers',
        messageClass: 'marketing',
        data: { headline: 'Up to 30% off garden tools', url: 'https://shop.example.com/offers' },
        recipients,
      };
    }
  }
}
