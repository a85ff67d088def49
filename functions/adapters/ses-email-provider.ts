import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { DeliveryOutcome, DeliveryProvider } from '../core/provider/delivery-provider';
import { classifyProviderError, type ProviderErrorRules } from '../core/provider/provider-outcome';
import { unsubscribeTopic } from '../core/policy/consent';
import { emailRouteFor, type EmailRoute } from '../core/policy/email-route';
import type { ProviderRequest } from '../core/templates/rendered-message';
import { sendTracked } from './sdk-call-progress';

/** The message tag that carries our idempotency key into SES events (delivery evidence). */
export const SES_KEY_TAG = 'idempotency-key';
/** The message tag that carries the sending attempt's claim version: a `Reject` proves only that attempt unsent. */
export const SES_CLAIM_VERSION_TAG = 'claim-version';
/**
 * The message tag of a bulk e-mail naming its contact-list topic: its events (a bounce to an unsubscribed
 * contact) are known to be about a list-managed e-mail, and of which topic.
 */
export const SES_TOPIC_TAG = 'unsubscribe-topic';

/** SES v2 `SendEmail`'s documented errors (API reference), plus the throttling SES answers for its quotas. */
export const SES_ERROR_RULES: ProviderErrorRules = {
  // The content or the recipient was rejected: the same request will be rejected again.
  permanent: new Set(['MessageRejected', 'BadRequestException']),
  // TooManyRequestsException (429) is modeled for SendEmail; the sending quotas come as the common ThrottlingException
  // (400, read by provider-outcome) "Maximum sending rate exceeded" / "Daily message quota exceeded" (SES guide).
  throttling: new Set(['TooManyRequestsException', 'LimitExceededException']),
  // Every e-mail fails until an operator acts: never a silent FAILED.
  configuration: new Set([
    'SendingPausedException',
    'AccountSuspendedException',
    'MailFromDomainNotVerifiedException',
    // A missing configuration set (or identity).
    'NotFoundException',
  ]),
  // An unverified From identity, or a sandboxed account sending to an unverified recipient.
  configurationMessages: [/not verified/i, /sending (is )?(paused|suspended)/i],
  quotaMessages: [/daily message quota/i, /24[- ]hour/i],
};

export interface SesEmailSettings {
  readonly fromAddress: string;
  /** Configuration set whose event destination publishes delivery evidence (the urgent lane's). @default none */
  readonly configurationSetName?: string;
  /** The urgent (or single) lane's SES tenant, named in `TenantName`. @default none */
  readonly tenantName?: string;
  /** The bulk lane's tenant and configuration set, for the e-mails of its classes. @default none: every class takes the urgent route */
  readonly bulk?: EmailRoute & { readonly classes: readonly string[] };
  /**
   * The account's SES contact list: a bulk e-mail names it and its class's topic in `ListManagementOptions`,
   * so SES adds the one-click `List-Unsubscribe` headers, fills `{{amazonSESUnsubscribeUrl}}` and refuses
   * later sends to a contact who unsubscribed. @default none: a bulk e-mail is not sent (configuration fault)
   */
  readonly contactListName?: string;
  /** This stack's prefix of its topics in that list. @default '' */
  readonly topicPrefix?: string;
}

/** Email through SES v2 `SendEmail`. SES v2 takes no idempotency token, so the key rides as a message tag. */
export class SesEmailProvider implements DeliveryProvider {
  constructor(
    private readonly client: SESv2Client,
    private readonly settings: SesEmailSettings,
  ) {}

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    const { message } = request;
    if (message.channel !== 'email') return { kind: 'permanent', reason: `SES cannot send ${message.channel}` };
    const contactList = this.settings.contactListName;
    if (request.bulk && !contactList) {
      // Never a bulk e-mail without its unsubscribe path: nothing sent, an operator must name the contact list.
      return { kind: 'transient', cause: 'configuration', reason: 'NoContactList: a bulk e-mail needs the SES contact list (SES_CONTACT_LIST_NAME)' };
    }
    const route = emailRouteFor(request.messageClass, {
      urgent: { tenantName: this.settings.tenantName, configurationSetName: this.settings.configurationSetName },
      bulk: this.settings.bulk,
    });
    const topic = request.bulk ? unsubscribeTopic(this.settings.topicPrefix ?? '', request.messageClass) : undefined;
    const command = new SendEmailCommand({
      FromEmailAddress: this.settings.fromAddress,
      Destination: { ToAddresses: [message.to] },
      Content: {
        Simple: {
          Subject: { Data: message.subject, Charset: 'UTF-8' },
          Body: {
            Text: { Data: message.text, Charset: 'UTF-8' },
            ...(message.html ? { Html: { Data: message.html, Charset: 'UTF-8' } } : {}),
          },
        },
      },
      EmailTags: [
        { Name: SES_KEY_TAG, Value: request.key },
        { Name: SES_CLAIM_VERSION_TAG, Value: String(request.claimVersion) },
        { Name: 'message-class', Value: tagValue(request.messageClass) },
        { Name: 'template', Value: tagValue(request.templateId) },
        ...(topic ? [{ Name: SES_TOPIC_TAG, Value: tagValue(topic) }] : []),
      ],
      ConfigurationSetName: route.configurationSetName,
      // The class's lane's tenant: its reputation, its pause and its suppression list are that lane's alone.
      ...(route.tenantName ? { TenantName: route.tenantName } : {}),
      // Only bulk e-mail: an otp or transactional e-mail is never unsubscribable and carries no such header.
      ...(topic && contactList ? { ListManagementOptions: { ContactListName: contactList, TopicName: topic } } : {}),
    });
    return sendTracked(command, (c) => this.client.send(c, { abortSignal: signal }), {
      service: 'SES',
      classify: (error, progress) => classifyProviderError(error, SES_ERROR_RULES, progress),
    });
  }
}

/** SES tag values allow only ASCII letters, digits, `_`, `-`, `.` and `@`. */
function tagValue(value: string): string {
  return value.replace(/[^A-Za-z0-9_.@-]/g, '_').slice(0, 256) || '_';
}
