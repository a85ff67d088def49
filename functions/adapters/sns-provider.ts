import { CheckIfPhoneNumberIsOptedOutCommand, PublishCommand, type MessageAttributeValue, type SNSClient } from '@aws-sdk/client-sns';
import type { DeliveryOutcome, DeliveryProvider } from '../core/provider/delivery-provider';
import { classifyProviderError, type ProviderErrorRules } from '../core/provider/provider-outcome';
import { pushAttributes, pushPayloads } from '../core/templates/push-payload';
import type { ProviderRequest } from '../core/templates/rendered-message';
import { sendTracked } from './sdk-call-progress';

/** Message attribute that carries our idempotency key on every SNS publish. */
export const SNS_KEY_ATTRIBUTE = 'notifier.idempotency-key';

/** SNS `Publish`'s documented errors (API reference) as the SDK names them. */
export const SNS_ERROR_RULES: ProviderErrorRules = {
  // An invalid phone number or message, a disabled or deleted push endpoint.
  permanent: new Set([
    'InvalidParameterException',
    'InvalidParameterValueException',
    'ValidationException',
    'EndpointDisabledException',
    'NotFoundException',
  ]),
  // Publish throttles with the common `ThrottlingException` / `Throttling` (400, read by provider-outcome); ThrottledException
  // is modeled for other SNS operations, not Publish, and kept in case.
  throttling: new Set(['ThrottledException', 'KMSThrottlingException']),
  configuration: new Set([
    'AuthorizationErrorException',
    'InvalidSecurityException',
    'PlatformApplicationDisabledException',
    'KMSDisabledException',
    'KMSAccessDeniedException',
    'KMSNotFoundException',
    'KMSInvalidStateException',
    'KMSOptInRequired',
  ]),
  // An invalid parameter that is ours (sender id, origination number, SMS type), not the recipient's.
  configurationMessages: [/SenderID|OriginationNumber|SMSType|MessageAttribute/i],
  // SNS documents OptedOut ("the specified phone number opted out of receiving SMS messages from your account")
  // for CreateSMSSandboxPhoneNumber; Publish accepts a text to an opted-out number and its delivery log says
  // "Phone number is opted out" (the status Lambda reads that). Should Publish ever answer it, it means the same.
  withdrawnConsent: { names: new Set(['OptedOutException']), consent: 'OptedOut' },
};

export interface SnsSettings {
  /** Alphanumeric sender id where the destination country supports it. @default none */
  readonly smsSenderId?: string;
  /** Origination number (E.164) for SMS. @default none: SNS picks one */
  readonly smsOriginationNumber?: string;
}

/**
 * SMS to a phone number and push to a platform endpoint, both through SNS `Publish`.
 * SNS takes no idempotency token for these (MessageDeduplicationId is FIFO-topic only).
 */
export class SnsProvider implements DeliveryProvider {
  constructor(
    private readonly client: SNSClient,
    private readonly settings: SnsSettings = {},
  ) {}

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    const command = this.command(request);
    if (!command) return { kind: 'permanent', reason: `SNS cannot send ${request.message.channel}` };
    // The client's query serializer throws on a lone surrogate (URIError), and then keeps the half-written
    // request, which it writes into the next request on the client: such text never reaches it.
    const illFormed = Object.entries(request.message).find(([, value]) => typeof value === 'string' && !value.isWellFormed());
    if (illFormed) return { kind: 'permanent', reason: `NotSent: the ${request.message.channel} ${illFormed[0]} is not well-formed Unicode` };
    return sendTracked(command, (c) => this.client.send(c, { abortSignal: signal }), {
      service: 'SNS',
      classify: (error, progress) => classifyProviderError(error, SNS_ERROR_RULES, progress),
    });
  }

  /** SNS's own opt-out list: one `CheckIfPhoneNumberIsOptedOut` request (no SMS is sent or billed). Push endpoints have none. */
  async optedOut(address: string, signal: AbortSignal): Promise<boolean> {
    if (!address.startsWith('+')) return false;
    const result = await this.client.send(new CheckIfPhoneNumberIsOptedOutCommand({ phoneNumber: address }), { abortSignal: signal });
    return result.isOptedOut === true;
  }

  private command(request: ProviderRequest): PublishCommand | undefined {
    const { message } = request;
    const keyAttribute: Record<string, MessageAttributeValue> = {
      [SNS_KEY_ATTRIBUTE]: { DataType: 'String', StringValue: request.key },
    };
    if (message.channel === 'sms') {
      return new PublishCommand({
        PhoneNumber: message.to,
        Message: message.text,
        MessageAttributes: {
          ...keyAttribute,
          'AWS.SNS.SMS.SMSType': { DataType: 'String', StringValue: request.smsType },
          ...(this.settings.smsSenderId
            ? { 'AWS.SNS.SMS.SenderID': { DataType: 'String', StringValue: this.settings.smsSenderId } }
            : {}),
          ...(this.settings.smsOriginationNumber
            ? { 'AWS.MM.SMS.OriginationNumber': { DataType: 'String', StringValue: this.settings.smsOriginationNumber } }
            : {}),
        },
      });
    }
    if (message.channel === 'push') {
      return new PublishCommand({
        TargetArn: message.to,
        MessageStructure: 'json',
        Message: JSON.stringify(pushPayloads({ title: message.title, body: message.text, key: request.key, priority: request.push.priority })),
        MessageAttributes: { ...keyAttribute, ...pushAttributes(request.key, request.push, message.validForSeconds, request.lifetimeLeftSeconds) },
      });
    }
    return undefined;
  }
}
