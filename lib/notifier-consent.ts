import { RemovalPolicy } from 'aws-cdk-lib';
import * as ses from 'aws-cdk-lib/aws-ses';
import type { Construct } from 'constructs';
import { unsubscribeTopic } from '../functions/core/policy/consent';
import type { Channel } from '../functions/core/event/idempotency-key';
import { buildMessageClassRegistry, type MessageClassDefinition } from '../functions/core/policy/message-class';
import { windowMinutes } from '../functions/core/policy/quiet-hours';
import { DEFAULT_QUIET_HOURS_TIME_ZONE } from '../functions/core/policy/quiet-hours-deferral';
import { isTimeZone } from '../functions/core/event/time-zone-name';
import { timeZonesOfCountry, zoneSpreadMinutes } from '../functions/core/policy/recipient-time-zone';
import type { ConsentProps } from './props/consent-props';

/** What a change of the clocks adds to a night of quiet hours at most: the night they go back is an hour longer. */
const CLOCK_CHANGE_MINUTES = 60;

/** SES's limit on topics per contact list ("Using list management"). */
export const MAX_TOPICS_PER_CONTACT_LIST = 20;
/** The contact list's name unless the props give one. */
export const DEFAULT_CONTACT_LIST_NAME = 'notifier';

/** The consent props with defaults applied, and what the message classes make of them. */
export interface ResolvedConsent {
  readonly contactListName: string;
  readonly createContactList: boolean;
  readonly topicPrefix: string;
  /** This stack's topics: one per bulk class. */
  readonly topics: readonly string[];
  /** Every topic of a list this stack creates: its own and `additionalTopics`. */
  readonly listTopics: readonly string[];
  readonly quietHoursTimeZone: string;
  /**
   * The longest quiet hours may hold a record (seconds), of any class: its window, an hour for a change of the
   * clocks (the night they go back is an hour longer), and for texts the widest spread of the zones of a country
   * the stack texts (a number with no `timeZone` waits while it is quiet time in any zone of its country: the US
   * from 21:00 in New York to 08:00 in Honolulu, 17 hours in summer). 0 when no class has quiet hours.
   */
  readonly quietHoursSeconds: number;
  /** Each class and country whose window, spread over the country's zones, leaves no minute of the day to text it. */
  readonly quietHoursWithoutDaytime: readonly string[];
  /** The classes that have quiet hours: the lanes that carry them hold records for them. */
  readonly quietClasses: readonly string[];
}

/**
 * @param channels the channels this stack sends: quiet hours on a channel it does not send hold nothing.
 */
export function resolveConsent(
  props: ConsentProps & { readonly messageClasses?: readonly MessageClassDefinition[]; readonly smsCountries?: readonly string[] },
  channels: readonly Channel[],
): ResolvedConsent {
  const list = props.contactList ?? {};
  const topicPrefix = list.topicPrefix ?? '';
  const classes = classesOf(props.messageClasses);
  const quiet = classes.filter((c) => c.quietHours?.channels.some((channel) => channels.includes(channel)));
  const topics = classes.filter((c) => c.bulk).map((c) => unsubscribeTopic(topicPrefix, c.name));
  const create = list.create ?? true;
  // How far apart the clocks of each country the stack texts can be: a number with no timeZone waits for all of them.
  // A code that is no country's is left to the destinations' check to name (Intl.Locale throws on some).
  const countries = channels.includes('sms') ? (props.smsCountries ?? []).filter((code) => /^[A-Z]{2}$/.test(code)) : [];
  const spreads = countries.map((country) => ({ country, minutes: zoneSpreadMinutes(timeZonesOfCountry(country)) }));
  const spreadsOf = (c: MessageClassDefinition) => (c.quietHours?.channels.includes('sms') ? spreads : []);
  const holdMinutes = (c: MessageClassDefinition) =>
    c.quietHours ? windowMinutes(c.quietHours) + CLOCK_CHANGE_MINUTES + Math.max(0, ...spreadsOf(c).map((s) => s.minutes)) : 0;
  return {
    contactListName: list.contactListName ?? DEFAULT_CONTACT_LIST_NAME,
    createContactList: create,
    topicPrefix,
    topics,
    listTopics: create ? [...topics, ...(list.additionalTopics ?? [])] : topics,
    quietHoursTimeZone: props.quietHoursTimeZone ?? DEFAULT_QUIET_HOURS_TIME_ZONE,
    quietHoursSeconds: Math.max(0, ...quiet.map(holdMinutes)) * 60,
    quietHoursWithoutDaytime: quiet.flatMap((c) =>
      spreadsOf(c)
        .filter((s) => c.quietHours && windowMinutes(c.quietHours) + s.minutes >= 1440)
        .map((s) => `${c.name} (${c.quietHours?.start}-${c.quietHours?.end}) and ${s.country}'s zones (clocks up to ${hoursOf(s.minutes)} apart)`),
    ),
    quietClasses: quiet.map((c) => c.name),
  };
}

/** Whether a lane carries a class with quiet hours: the bulk lane its bulk classes, the urgent lane every other, one queue all. */
export function laneHoldsQuietHours(lane: string, bulkClasses: readonly string[], c: ResolvedConsent): boolean {
  if (lane === 'bulk') return c.quietClasses.some((name) => bulkClasses.includes(name));
  if (lane === 'urgent') return c.quietClasses.some((name) => !bulkClasses.includes(name));
  return c.quietClasses.length > 0;
}

/** What SES or the handlers would refuse, each naming the value given. */
export function consentViolations(c: ResolvedConsent, additionalTopics: readonly string[] | undefined): string[] {
  const violations: string[] = [];
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(c.contactListName)) {
    violations.push(`contactList.contactListName (${JSON.stringify(c.contactListName)}) must be 1-64 letters, digits, _ or -`);
  }
  if (!/^[A-Za-z0-9_-]{0,32}$/.test(c.topicPrefix)) violations.push(`contactList.topicPrefix (${JSON.stringify(c.topicPrefix)}) must be at most 32 letters, digits, _ or -`);
  if (c.listTopics.length > MAX_TOPICS_PER_CONTACT_LIST) {
    violations.push(
      `the contact list would have ${c.listTopics.length} topics (${c.listTopics.join(', ')}); SES allows ${MAX_TOPICS_PER_CONTACT_LIST} per list, and one list per account`,
    );
  }
  if (new Set(c.listTopics).size !== c.listTopics.length) violations.push(`the contact list's topics repeat (${c.listTopics.join(', ')}): give each stack its own topicPrefix`);
  if (additionalTopics?.length && !c.createContactList) violations.push('contactList.additionalTopics needs create: true (only the stack that creates the list names its topics)');
  for (const detail of c.quietHoursWithoutDaytime) {
    violations.push(`quiet hours of class ${detail} leave no minute of the day to text a number there with no timeZone: shorten the window or drop the country from smsCountries`);
  }
  if (!isTimeZone(c.quietHoursTimeZone)) violations.push(`quietHoursTimeZone (${JSON.stringify(c.quietHoursTimeZone)}) must be an IANA time zone such as America/New_York`);
  return violations;
}

/**
 * The account's contact list with one topic per bulk class, every topic opted in by default (consent is the
 * producer's: a bulk class is sent only to people who gave it; the list records who withdrew it). Retained
 * on delete (a list created again would have forgotten every unsubscribe), except when its own creation rolls
 * back: SES allows one list per account, so a list left by a failed first deploy would fail every retry
 * (CloudFormation, `DeletionPolicy` RetainExceptOnCreate: "If resources are retained during rollback, they interfere
 * with retries of the stack operation"). A stack deployed again after `cdk destroy` adopts the kept list with
 * `create: false` (docs/deployment.md, "Deleting and deploying again").
 */
export function createContactList(scope: Construct, c: ResolvedConsent): ses.CfnContactList | undefined {
  if (!c.createContactList) return undefined;
  const list = new ses.CfnContactList(scope, 'ContactList', {
    contactListName: c.contactListName,
    description: 'Who unsubscribed from which bulk topic (SES subscription management): read by SES, never by hand',
    topics: c.listTopics.map((topicName) => ({
      topicName,
      displayName: topicName,
      description: `Bulk messages of class ${topicName.slice(c.topicPrefix.length) || topicName}`,
      defaultSubscriptionStatus: 'OPT_IN',
    })),
  });
  list.applyRemovalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE);
  return list;
}

function classesOf(extra: readonly MessageClassDefinition[] | undefined) {
  try {
    return [...buildMessageClassRegistry(extra?.length ? JSON.stringify(extra) : undefined).values()];
  } catch {
    // An invalid class list is reported by handlerConfigViolations; the built-in classes stand in meanwhile.
    return [...buildMessageClassRegistry().values()];
  }
}

/** `17 h` or `17 h 45 min`. */
function hoursOf(minutes: number): string {
  return minutes % 60 === 0 ? `${minutes / 60} h` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
