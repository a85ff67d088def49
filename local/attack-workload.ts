import type { NotificationEvent } from '../functions/core/event/notification-event';
import { mulberry32 } from './prng';
import type { Workload, WorkloadItem } from './workload';

/** The countries the attacked deployment texts. */
export const ATTACK_SMS_COUNTRIES = ['US', 'CA'] as const;

/**
 * SMS-pumping targets: premium-rate blocks inside an allowed country (US 900 numbers: each block is
 * 1,000 numbers, the number without its last 3 digits), and numbers outside the list: a UK mobile
 * range, the international networks +882 and +883, and two Caribbean countries that share +1.
 */
export const PREMIUM_BLOCKS = ['+19002005', '+19002015', '+19002025', '+19002035'] as const;
/** Prefix and the number's digits in all (after the `+`). */
export const OUTSIDE_PREFIXES: readonly (readonly [string, number])[] = [
  ['+4479111', 12],
  ['+88216', 12],
  ['+8835', 12],
  ['+1876234', 11],
  ['+1649232', 11],
];

/** One legitimate user: a number of their own, and how often they tapped "resend code". */
export interface LegitimateUser {
  readonly recipientId: string;
  readonly phone: string;
  readonly taps: number;
}

export interface AttackWorkload extends Workload {
  readonly users: readonly LegitimateUser[];
  /** Event id of every attack event, with the number it texts. */
  readonly attackNumbers: ReadonlyMap<string, string>;
}

export interface AttackWorkloadOptions {
  readonly seed: number;
  /** Legitimate users, each tapping 1 to 9 times. @default 200 */
  readonly users?: number;
  /** OTP events to premium blocks, spread over {@link PREMIUM_BLOCKS}. @default 1200 */
  readonly premiumEvents?: number;
  /** OTP events to numbers outside the country list, spread over {@link OUTSIDE_PREFIXES}. @default 1000 */
  readonly outsideEvents?: number;
  /** Events occurred shortly before this time. */
  readonly now: number;
}

/**
 * One run's events: the attack and the legitimate users interleaved at random, every event injected
 * 1 to 3 times (producer retries and broker redeliveries), the repeats both right behind and far after.
 */
export function generateAttackWorkload(options: AttackWorkloadOptions): AttackWorkload {
  const random = mulberry32(options.seed);
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');
  const code = (eventId: string, recipientId: string, phone: string): NotificationEvent => ({
    eventId,
    occurredAt: new Date(options.now - Math.floor(random() * 30_000)).toISOString(),
    type: 'LoginCodeRequested',
    templateId: 'login-code',
    messageClass: 'otp',
    data: { code: digits(6), expiresInMinutes: 10 },
    recipients: [{ recipientId, phone, channels: ['sms'] }],
  });

  const users: LegitimateUser[] = Array.from({ length: options.users ?? 200 }, (_, i) => ({
    recipientId: `user-${options.seed}-${i}`,
    // A number of its own in a block of its own (Chicago, exchanges 200-999).
    phone: `+1312${200 + i}${digits(4)}`,
    taps: 1 + Math.floor(random() * 9),
  }));
  const events: NotificationEvent[] = users.flatMap((user, i) =>
    Array.from({ length: user.taps }, (_, tap) => code(`login-${options.seed}-u${i}-tap${tap}`, user.recipientId, user.phone)),
  );
  const attackNumbers = new Map<string, string>();
  const attack = (count: number, prefixes: readonly (readonly [string, number])[], label: string) => {
    for (let i = 0; i < count; i += 1) {
      const [prefix, length] = prefixes[i % prefixes.length]!;
      const phone = `${prefix}${digits(length - (prefix.length - 1))}`;
      const eventId = `pump-${options.seed}-${label}-${i}`;
      attackNumbers.set(eventId, phone);
      // Sign-up forms: a fresh account per request.
      events.push(code(eventId, `bot-${options.seed}-${label}-${i}`, phone));
    }
  };
  attack(options.premiumEvents ?? 1200, PREMIUM_BLOCKS.map((block) => [block, 11] as const), 'premium');
  attack(options.outsideEvents ?? 1000, OUTSIDE_PREFIXES, 'outside');

  // Shuffle (Fisher-Yates), then deliver each event 1 to 3 times.
  for (let i = events.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [events[i], events[j]] = [events[j]!, events[i]!];
  }
  const placed: { at: number; item: WorkloadItem }[] = [];
  events.forEach((event, i) => {
    const deliveries = 1 + Math.floor(random() * 3);
    for (let d = 0; d < deliveries; d += 1) {
      const at = d === 0 ? i : i + (random() < 0.5 ? random() * 3 : 3 + random() * 300);
      placed.push({ at, item: { body: JSON.stringify(event), eventId: event.eventId, messageClass: event.messageClass, duplicate: d > 0 } });
    }
  });
  placed.sort((a, b) => a.at - b.at);
  return { items: placed.map((p) => p.item), events, users, attackNumbers };
}
