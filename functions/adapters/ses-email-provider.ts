import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { DeliveryOutcome, DeliveryProvider } from '../core/delivery-provider';
import { classifyProviderError, type ProviderErrorRules } from '../core/provider-outcome';
import type { SendRequest } from '../core/rendered-message';

/** The message tag that carries our idempotency key into SES events (delivery evidence). */
export const SES_KEY_TAG = 'idempotency-key';

export const SES_ERROR_RULES: ProviderErrorRules = {
  // Content or recipient rejected: the same request will be rejected again.
  permanent: new Set(['MessageRejected', 'BadRequestException']),
  // Certainly not sent, and fixable by waiting or by an operator: retry with the same key.
  transient: new Set([
    'TooManyRequestsException',
    'LimitExceededException',
    'SendingPausedException',
    'AccountSuspendedException',
    'MailFromDomainNotVerifiedException',
    'NotFoundException',
  ]),
};

export interface SesEmailSettings {
  readonly fromAddress: string;
  /** Configuration set whose event destination publishes delivery evidence. @default none */
  readonly configurationSetName?: string;
}

/** Email through SES v2 `SendEmail`. SES v2 takes no idempotency token, so the key rides as a message tag. */
export class SesEmailProvider implements DeliveryProvider {
  constructor(
    private readonly client: SESv2Client,
    private readonly settings: SesEmailSettings,
  ) {}

  async send(request: SendRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    const { message } = request;
    if (message.channel !== 'email') return { kind: 'permanent', reason: `SES cannot send ${message.channel}` };
    try {
      const result = await this.client.send(
        new SendEmailCommand({
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
            { Name: 'message-class', Value: tagValue(request.messageClass) },
            { Name: 'template', Value: tagValue(request.templateId) },
          ],
          ConfigurationSetName: this.settings.configurationSetName,
        }),
        { abortSignal: signal },
      );
      return result.MessageId
        ? { kind: 'sent', providerMessageId: result.MessageId }
        : { kind: 'ambiguous', reason: 'SES accepted the call but returned no MessageId' };
    } catch (error) {
      return classifyProviderError(error, SES_ERROR_RULES);
    }
  }
}

/** SES tag values allow only ASCII letters, digits, `_`, `-`, `.` and `@`. */
function tagValue(value: string): string {
  return value.replace(/[^A-Za-z0-9_.@-]/g, '_').slice(0, 256) || '_';
}
