import type { NotificationEvent } from '../functions/core/event/notification-event';
import { mulberry32 } from './prng';

/**
 * The consent simulation's recipients and days: people across time zones, some of whom withdraw consent
 * before or during the run, each sent marketing (e-mail and text) once a day, and codes and order updates at
 * any hour of the day or night.
 */

/** Zones a recipient may name in its event (`timeZone`). */
export const NAMED_ZONES = [
  'America/New_York',
  'America/Chicago',
  'America/Denver',
  'America/Los_Angeles',
  'Pacific/Honolulu',
  'Europe/London',
  'Europe/Berlin',
  'Asia/Kolkata',
  'Asia/Tokyo',
  'Australia/Sydney',
] as const;

/** Where a recipient with a US number and no `timeZone` really is (the sender only knows "US"). */
const US_ZONES = ['America/New_York', 'America/Chicago', 'America/Denver', 'America/Phoenix', 'America/Los_Angeles', 'America/Anchorage', 'Pacific/Honolulu'] as const;

/** How a recipient withdraws consent, if it does. */
export type Withdrawal =
  /** Unsubscribed on SES's side before the run, with no event the stack heard: SES bounces its next bulk e-mail. */
  | 'unsubscribed-before'
  /** Replied STOP before the run: SNS holds the number as opted out. */
  | 'stop-before'
  /** Uses the one-click link of a bulk e-mail it got, during the run. */
  | 'unsubscribes-during'
  /** Replies STOP during the run. */
  | 'stop-during';

const WITHDRAWALS: readonly Withdrawal[] = ['unsubscribed-before', 'stop-before', 'unsubscribes-during', 'stop-during'];

export interface SimRecipient {
  readonly recipientId: string;
  readonly email: string;
  readonly phone: string;
  /** Where the recipient really is: what quiet hours are judged by. */
  readonly trueZone: string;
  /** Whether its events name its zone (else the number's country decides). */
  readonly zoneGiven: boolean;
  readonly withdrawal: Withdrawal | undefined;
  /** For a withdrawal during the run: when (epoch ms). */
  readonly withdrawsAt: number | undefined;
}

export interface ScheduledEvent {
  readonly at: number;
  readonly event: NotificationEvent;
}

export interface ConsentWorkload {
  readonly startMs: number;
  readonly recipients: readonly SimRecipient[];
  readonly events: readonly ScheduledEvent[];
}

export const SIM_START_MS = Date.parse('2026-11-29T00:00:00Z');
const HOUR = 3_600_000;
/**
 * One marketing campaign a day (the class allows one per recipient, template and channel a day), at hours
 * that are night somewhere: 03:00 UTC is night on the US east coast and in Europe but evening in the west
 * (a sender that judged a US number by one of its country's zones would send some in someone's night),
 * 09:00 UTC is night in the Americas, 15:00 UTC in Tokyo and Sydney.
 */
export const CAMPAIGN_HOURS_UTC = [3, 33, 63] as const;

export function generateConsentWorkload(options: { readonly seed: number; readonly recipients: number }): ConsentWorkload {
  const random = mulberry32(options.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  let withdrawals = 0;
  const recipients: SimRecipient[] = Array.from({ length: options.recipients }, (_, i) => {
    const kind = random();
    const gb = kind >= 0.8;
    const zoneGiven = kind < 0.4;
    const trueZone = zoneGiven ? pick(NAMED_ZONES) : gb ? 'Europe/London' : pick(US_ZONES);
    // One in five withdraws, the four ways in turn (so even a small run has each).
    const withdrawal: Withdrawal | undefined = random() < 0.2 ? WITHDRAWALS[withdrawals++ % WITHDRAWALS.length] : undefined;
    const during = withdrawal === 'unsubscribes-during' || withdrawal === 'stop-during';
    return {
      recipientId: `member-${i}`,
      email: `member${i}@shop.example`,
      phone: gb ? `+4474${String(i).padStart(8, '0')}` : `+1415${String(2_000_000 + i).padStart(7, '0')}`,
      trueZone,
      zoneGiven,
      withdrawal,
      // After the first campaign's e-mail (03:00 UTC on day one), before the second campaign.
      withdrawsAt: during ? SIM_START_MS + (23 + random() * 9) * HOUR : undefined,
    };
  });

  const events: ScheduledEvent[] = [];
  const occurred = (at: number) => new Date(at - 1_000).toISOString();
  CAMPAIGN_HOURS_UTC.forEach((hour, day) => {
    const at = SIM_START_MS + hour * HOUR;
    for (const r of recipients) {
      events.push({
        at,
        event: {
          eventId: `campaign-${day}-${r.recipientId}`,
          occurredAt: occurred(at),
          type: 'WeeklyOffers',
          templateId: 'weekly-offers',
          messageClass: 'marketing',
          data: { headline: `Offers of week ${48 + day}`, url: 'https://shop.example/offers' },
          recipients: [{ recipientId: r.recipientId, email: r.email, phone: r.phone, ...(r.zoneGiven ? { timeZone: r.trueZone } : {}), channels: ['email', 'sms'] }],
        },
      });
    }
  });
  // Codes and order updates to a third of the recipients each, at any hour: never held, never stopped by consent.
  for (const r of recipients) {
    if (random() < 0.35) {
      const at = SIM_START_MS + random() * 70 * HOUR;
      events.push({
        at,
        event: {
          eventId: `login-${r.recipientId}`,
          occurredAt: occurred(at),
          type: 'LoginCodeRequested',
          templateId: 'login-code',
          messageClass: 'otp',
          data: { code: String(100_000 + Math.floor(random() * 900_000)), expiresInMinutes: 10 },
          recipients: [{ recipientId: r.recipientId, phone: r.phone, ...(r.zoneGiven ? { timeZone: r.trueZone } : {}), channels: ['sms'] }],
        },
      });
    }
    if (random() < 0.35) {
      const at = SIM_START_MS + random() * 70 * HOUR;
      events.push({
        at,
        event: {
          eventId: `shipped-${r.recipientId}`,
          occurredAt: occurred(at),
          type: 'OrderShipped',
          templateId: 'order-shipped',
          messageClass: 'transactional',
          data: { orderId: r.recipientId.slice(-6), carrier: 'DHL', trackingNumber: 'JD0142' },
          recipients: [{ recipientId: r.recipientId, email: r.email, phone: r.phone, channels: ['email', 'sms'] }],
        },
      });
    }
  }
  events.sort((a, b) => a.at - b.at);
  return { startMs: SIM_START_MS, recipients, events };
}
