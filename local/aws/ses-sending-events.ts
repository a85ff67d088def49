import { randomUUID } from 'node:crypto';
import type { SesMail } from './local-contact-list';

/**
 * What becomes of one e-mail's events on their way to the event destination (all of an e-mail's events share it):
 * published, lost, or published `delayMs` late. SES itself documents no loss on an SNS destination; a wire run's
 * fault plan draws it (local/aws/wire-fault-plan.ts), everything else publishes.
 */
export type SesEventFate = 'deliver' | 'drop' | { readonly delayMs: number };

/** One event SES publishes for an accepted e-mail, and how long after the send it comes. */
export interface ScheduledSesEvent {
  readonly afterMs: number;
  readonly event: Record<string, unknown>;
}

/**
 * The mailbox simulator's addresses that answer with a bounce or a complaint (SES developer guide, "Using the
 * mailbox simulator": https://docs.aws.amazon.com/ses/latest/dg/send-an-email-from-console.html#send-email-simulator).
 * Any other address is delivered.
 */
export const MAILBOX_SIMULATOR = { bounce: 'bounce@simulator.amazonses.com', complaint: 'complaint@simulator.amazonses.com' } as const;

/** How long after the send the local SES says the receiving server took the e-mail (SES's `processingTimeMillis`). */
export const LOCAL_DELIVERY_AFTER_MS = 100;

/**
 * The events SES publishes through a configuration set's event destination for one accepted e-mail, in SES's event
 * publishing format ("Contents of event data that Amazon SES publishes to Amazon SNS":
 * https://docs.aws.amazon.com/ses/latest/dg/event-publishing-retrieving-sns-contents.html): `Send` at once, then
 * `Delivery`; to the simulator's bounce address a Permanent `Bounce` instead of the delivery, to its complaint address
 * a `Complaint` after the delivery. Each carries the e-mail's `mail` object, its tags (the sender's key and claim
 * version among them) and SES's own `ses:configuration-set` tag.
 */
export function sesSendingEvents(mail: SesMail, configurationSetName: string | undefined): ScheduledSesEvent[] {
  const sentAt = Date.parse(mail.timestamp);
  const at = (afterMs: number) => new Date(sentAt + afterMs).toISOString();
  const published = {
    ...mail,
    sendingAccountId: '000000000000',
    tags: { ...mail.tags, ...(configurationSetName ? { 'ses:configuration-set': [configurationSetName] } : {}) },
  };
  const to = mail.destination;
  const events: ScheduledSesEvent[] = [{ afterMs: 0, event: { eventType: 'Send', mail: published, send: {} } }];
  if (to.includes(MAILBOX_SIMULATOR.bounce)) {
    events.push({
      afterMs: LOCAL_DELIVERY_AFTER_MS,
      event: {
        eventType: 'Bounce',
        mail: published,
        bounce: {
          timestamp: at(LOCAL_DELIVERY_AFTER_MS),
          bounceType: 'Permanent',
          bounceSubType: 'General',
          bouncedRecipients: [{ emailAddress: MAILBOX_SIMULATOR.bounce, action: 'failed', status: '5.1.1' }],
          feedbackId: randomUUID(),
        },
      },
    });
    return events;
  }
  events.push({
    afterMs: LOCAL_DELIVERY_AFTER_MS,
    event: {
      eventType: 'Delivery',
      mail: published,
      delivery: { timestamp: at(LOCAL_DELIVERY_AFTER_MS), processingTimeMillis: LOCAL_DELIVERY_AFTER_MS, recipients: [...to], smtpResponse: '250 2.0.0 OK', reportingMTA: 'local-ses' },
    },
  });
  if (to.includes(MAILBOX_SIMULATOR.complaint)) {
    events.push({
      afterMs: 2 * LOCAL_DELIVERY_AFTER_MS,
      event: {
        eventType: 'Complaint',
        mail: published,
        complaint: { timestamp: at(2 * LOCAL_DELIVERY_AFTER_MS), complainedRecipients: [{ emailAddress: MAILBOX_SIMULATOR.complaint }], complaintFeedbackType: 'abuse', feedbackId: randomUUID() },
      },
    });
  }
  return events;
}
