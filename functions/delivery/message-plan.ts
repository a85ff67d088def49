import { templateAudienceProblem } from '../core/consent';
import { addressFor } from '../core/recipient-address';
import { idempotencyKey, type MessageIdentity } from '../core/idempotency-key';
import type { MessageClass } from '../core/message-class';
import type { NotificationEvent } from '../core/notification-event';
import { validForSeconds } from '../core/push-policy';
import type { RenderedMessage, SendRequest } from '../core/rendered-message';
import { renderTemplate, type TemplateRegistry } from '../core/templates';

/** One logical message of an event: its key, and either a ready request or why it can never be sent. */
export interface MessagePlan {
  readonly identity: MessageIdentity;
  readonly key: string;
  readonly messageClass: MessageClass;
  readonly occurredAt: string;
  /** Ready to send (the rendered request), or why it can never be sent (no address, no template). */
  readonly prepared: { readonly ok: true; readonly request: SendRequest } | { readonly ok: false; readonly reason: string };
}

/** Expands an event into one plan per (recipient, channel). Pure. */
export function planMessages(
  event: NotificationEvent,
  messageClass: MessageClass,
  templates: TemplateRegistry,
): MessagePlan[] {
  return event.recipients.flatMap((recipient) =>
    recipient.channels.map((channel): MessagePlan => {
      const identity = { eventId: event.eventId, recipientId: recipient.recipientId, channel, templateId: event.templateId };
      const key = idempotencyKey(identity);
      const base = { identity, key, messageClass, occurredAt: event.occurredAt };
      const address = addressFor(recipient, channel);
      if (!address.ok) return { ...base, prepared: { ok: false, reason: address.reason } };
      const rendered = renderTemplate(templates, event.templateId, channel, event.data);
      if (!rendered.ok) return { ...base, prepared: { ok: false, reason: rendered.reason } };
      const template = templates.get(event.templateId);
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
    }),
  );
}
