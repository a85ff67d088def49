import { templateAudienceProblem } from '../core/policy/consent';
import { addressFor } from '../core/event/recipient-address';
import { idempotencyKey, type MessageIdentity } from '../core/event/idempotency-key';
import type { MessageClass } from '../core/policy/message-class';
import type { NotificationEvent } from '../core/event/notification-event';
import { validForSeconds } from '../core/templates/push-policy';
import type { RenderedMessage, SendRequest } from '../core/templates/rendered-message';
import type { Channel } from '../core/event/idempotency-key';
import type { Recipient } from '../core/event/notification-event';
import { localesOf, resolveTemplateLocale, type LocaleResolution } from '../core/templates/template-locale';
import { renderTemplate, type TemplateRegistry } from '../core/templates/templates';
import { fallbackKeyOf, fallbackPlanOf, type FallbackPlan } from '../core/fallback/fallback-plan';

/** One logical message of an event: its key, and either a ready request or why it can never be sent. */
export interface MessagePlan {
  readonly identity: MessageIdentity;
  readonly key: string;
  readonly messageClass: MessageClass;
  readonly occurredAt: string;
  /**
   * Which variant of the template the recipient gets and how it was found; none when the template does not exist.
   * The first claim records its locale on the row; a fallback to the default is counted by the sender.
   */
  readonly locale?: LocaleResolution;
  /** Ready to send (the rendered request), or why it can never be sent (no address, no template). */
  readonly prepared: { readonly ok: true; readonly request: SendRequest } | { readonly ok: false; readonly reason: string };
  /**
   * The same message planned in another of its template's locales (values written in that locale), for a row whose
   * first claim chose it: a takeover sends in the row's language, whatever this delivery's event says. Undefined
   * when the template has no variant in `locale`. @default none (a plan rebuilt from a row is in the row's locale)
   */
  readonly inLocale?: (locale: string) => MessagePlan | undefined;
  /**
   * The next channel of the recipient's `fallback` list after this message, kept on its row by the first claim
   * (fallback-plan.ts). @default none: nothing follows this message
   */
  readonly fallback?: { readonly plan: FallbackPlan; readonly key: string };
  /** The key of the message this one is the fallback of (recorded on its row). @default none: not a fallback */
  readonly replaces?: string;
}

/** Expands an event into one plan per (recipient, channel). Pure. */
export function planMessages(
  event: NotificationEvent,
  messageClass: MessageClass,
  templates: TemplateRegistry,
): MessagePlan[] {
  const template = templates.get(event.templateId);
  return event.recipients.flatMap((recipient) => {
    // The key is made of the identity alone: the locale is presentation, and may differ from one delivery to the next.
    const locale = template ? resolveTemplateLocale(template, recipient.locale) : undefined;
    const independent = recipient.channels.map((channel) => planOne(event, messageClass, templates, recipient, channel, locale));
    const chain = recipient.fallback;
    if (chain === undefined) return independent;
    // Only the chain's first channel now; each next one is planned from the row when the one before certainly failed.
    const primary = planOne(event, messageClass, templates, recipient, chain[0]!, locale);
    const plan = fallbackPlanOf(event, recipient, chain);
    return [...independent, plan ? { ...primary, fallback: { plan, key: fallbackKeyOf(primary.identity, plan) } } : primary];
  });
}

/** One message of the event, written in `locale`'s variant (none: the template is missing). */
function planOne(
  event: NotificationEvent,
  messageClass: MessageClass,
  templates: TemplateRegistry,
  recipient: Recipient,
  channel: Channel,
  locale: LocaleResolution | undefined,
): MessagePlan {
  const template = templates.get(event.templateId);
  const inLocale = (other: string): MessagePlan | undefined =>
    template && localesOf(template).includes(other)
      ? planOne(event, messageClass, templates, recipient, channel, { locale: other, formatLocale: other, chain: [other] })
      : undefined;
  const identity = { eventId: event.eventId, recipientId: recipient.recipientId, channel, templateId: event.templateId };
  const key = idempotencyKey(identity);
  const base = { identity, key, messageClass, occurredAt: event.occurredAt, ...(locale ? { locale } : {}), inLocale };
  const address = addressFor(recipient, channel);
  if (!address.ok) return { ...base, prepared: { ok: false, reason: address.reason } };
  const rendered = renderTemplate(templates, event.templateId, channel, event.data, {
    ...(locale ? { locale: locale.locale, formatLocale: locale.formatLocale } : {}),
    ...(recipient.timeZone !== undefined ? { timeZone: recipient.timeZone } : {}),
  });
  if (!rendered.ok) return { ...base, prepared: { ok: false, reason: rendered.reason } };
  const audience = channel === 'email' && template ? templateAudienceProblem(messageClass, template) : undefined;
  if (audience) return { ...base, prepared: { ok: false, reason: audience } };
  const validFor = rendered.content.channel === 'push' ? validForSeconds(messageClass.push, event.data) : undefined;
  const message: RenderedMessage = {
    ...rendered.content,
    to: address.address,
    ...(validFor === undefined ? {} : { validForSeconds: validFor }),
    // Quiet hours are in the recipient's time on every channel a class holds (the schema lets it hold e-mail).
    ...(recipient.timeZone ? { timeZone: recipient.timeZone } : {}),
  };
  return {
    ...base,
    prepared: {
      ok: true,
      request: {
        key,
        message,
        messageClass: messageClass.name,
        smsType: messageClass.smsType,
        push: messageClass.push,
        templateId: event.templateId,
        bulk: messageClass.bulk,
      },
    },
  };
}
