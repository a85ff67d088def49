import type { MessageClass } from './message-class';
import { quietUntil } from './quiet-hours';
import { recipientZones, type RecipientZones } from './recipient-time-zone';
import type { RenderedMessage } from '../templates/rendered-message';
import type { SmsCountryTable } from './sms-country-table';

/** The zone quiet hours fall back to when neither the recipient nor the number names one. */
export const DEFAULT_QUIET_HOURS_TIME_ZONE = 'UTC';

/** A message held back by its class's quiet hours: until when, and whose time that is. */
export interface QuietHoursDeferral {
  /** The first instant the message may be sent (epoch ms): the window's end in every zone the recipient may be in. */
  readonly untilMs: number;
  readonly zones: RecipientZones;
}

/**
 * Whether a message must wait for the end of its class's quiet hours in the recipient's time, and until
 * when. Only a class with quiet hours, and only on the channels they name, is ever held; every other
 * message (otp and transactional among them: never bulk, never quiet) passes at once. Pure.
 */
export function quietHoursDeferral(
  messageClass: Pick<MessageClass, 'quietHours'>,
  message: RenderedMessage,
  where: { readonly countries: SmsCountryTable | undefined; readonly defaultTimeZone: string },
  nowMs: number,
): QuietHoursDeferral | undefined {
  const window = messageClass.quietHours;
  if (!window || !window.channels.includes(message.channel)) return undefined;
  const zones = recipientZones(message, where.countries, where.defaultTimeZone);
  const untilMs = quietUntil(window, zones.zones, nowMs);
  return untilMs === undefined ? undefined : { untilMs, zones };
}
