import { createHash } from 'node:crypto';
import type { RenderedMessage } from '../templates/rendered-message';
import type { Suppression } from './suppression';

/**
 * What a recipient has withdrawn, as this stack knows it: from SES's subscription events (an
 * unsubscribe through the one-click header or the landing page), from a provider that refused a send
 * for it (SES's bounce to an unsubscribed contact, an SMS refused or logged as opted out), or set by
 * an operator. Kept per address and channel, never per message.
 */
export interface ConsentRecord {
  /** Unsubscribed from every topic of the contact list (e-mail), or opted out of every text (SMS). */
  readonly all: boolean;
  /** SES topics unsubscribed from (e-mail only; see {@link unsubscribeTopic}). */
  readonly topics: readonly string[];
  /** When the provider says the change happened (epoch ms): a later change wins. */
  readonly at: number;
  /** Where it was learned: `ses-subscription`, `ses-bounce`, `provider-refusal`, `sms-delivery-log`, ... */
  readonly source: string;
}

/**
 * Where consent records live. `withdraw` adds to what is withdrawn (a refusal or a log line proves an
 * opt-out, never an opt-in); `replace` writes SES's whole new preference state (a subscription event
 * also reports re-subscribing); both keep the record of the later `at`, so a duplicate or late event
 * changes nothing. Errors are thrown: the caller neither sends unchecked nor suppresses.
 */
export interface ConsentStore {
  /** Strongly consistent: an opt-out recorded before this read is seen by it. */
  read(consentKey: string): Promise<ConsentRecord | undefined>;
  withdraw(consentKey: string, withdrawn: { readonly all: boolean; readonly topics: readonly string[] }, at: number, source: string): Promise<void>;
  replace(consentKey: string, record: ConsentRecord): Promise<void>;
}

/** Why a bulk message to someone who withdrew consent is never sent. */
export type ConsentReason = 'Unsubscribed' | 'OptedOut';

/**
 * The consent record's key for a message's destination: 32 hex characters of a hash of the channel and
 * the normalised address (an e-mail address in lower case: an opt-out must not be dodged by case), so
 * neither the table nor the ledger row holds the address for it. Push has no opt-out: undefined.
 */
export function consentKeyOf(message: RenderedMessage): string | undefined {
  if (message.channel === 'push') return undefined;
  const address = message.channel === 'email' ? message.to.toLowerCase() : message.to;
  return createHash('sha256').update(JSON.stringify(['notifier-consent-v1', message.channel, address])).digest('hex').slice(0, 32);
}

/** The SES topic of a bulk class: the stack's prefix (two stacks sharing the account's one contact list) and the class name. */
export function unsubscribeTopic(topicPrefix: string, messageClass: string): string {
  return `${topicPrefix}${messageClass}`;
}

/** The suppression of a bulk message whose recipient withdrew consent for it, or undefined when it may be sent. Pure. */
export function consentSuppression(
  channel: RenderedMessage['channel'],
  topic: string,
  record: ConsentRecord | undefined,
): (Suppression & { readonly reason: ConsentReason }) | undefined {
  if (!record) return undefined;
  if (channel === 'email' && (record.all || record.topics.includes(topic))) {
    return { reason: 'Unsubscribed', detail: `Unsubscribed: the recipient unsubscribed from ${record.all ? 'every topic' : `topic ${topic}`} (${record.source})` };
  }
  if (channel === 'sms' && record.all) {
    return { reason: 'OptedOut', detail: `OptedOut: the number opted out of texts (${record.source})` };
  }
  return undefined;
}

/**
 * Why an e-mail of this class may not be rendered from this template, or undefined when it may: a bulk class
 * needs a bulk template (its body shows SES's unsubscribe link: CAN-SPAM asks for an opt-out in every commercial
 * e-mail), and a class that is not bulk must not use one (it goes out without list management, so the
 * placeholder would show as written). The reason names class and template, never data.
 */
export function templateAudienceProblem(messageClass: { readonly name: string; readonly bulk: boolean }, template: { readonly id: string; readonly bulk?: boolean }): string | undefined {
  const bulkTemplate = template.bulk === true;
  if (messageClass.bulk && !bulkTemplate) {
    return `NotBulkTemplate: class ${messageClass.name} is bulk and template "${template.id}" has no unsubscribe link (it is not "bulk": true)`;
  }
  if (!messageClass.bulk && bulkTemplate) {
    return `BulkTemplate: template "${template.id}" is for bulk classes; class ${messageClass.name} is never unsubscribable`;
  }
  return undefined;
}
