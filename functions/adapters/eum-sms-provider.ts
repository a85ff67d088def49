import { SendTextMessageCommand, type PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import type { DeliveryOutcome, DeliveryProvider } from '../core/delivery-provider';
import { classifyProviderError, type ProviderErrorRules } from '../core/provider-outcome';
import type { ProviderRequest } from '../core/rendered-message';

/** The `Context` key that carries our idempotency key into every event of the message (delivery evidence). */
export const EUM_KEY_CONTEXT = 'idempotency-key';
/** The `Context` key that carries the sending attempt's claim version: a refusal proves only that attempt unsent. */
export const EUM_CLAIM_VERSION_CONTEXT = 'claim-version';
/** The word an opted-out destination's FAILED reason starts with (`OptedOut: ConflictException ...`). */
export const EUM_OPTED_OUT = 'OptedOut';

/**
 * `SendTextMessage`'s documented errors (API reference: AccessDeniedException, ConflictException,
 * InternalServerException, ResourceNotFoundException, ServiceQuotaExceededException, ThrottlingException,
 * ValidationException), decided by their modeled `Reason` where one name covers both our faults and the
 * recipient's refusals. An unlisted reason is a configuration fault: retried and alarmed, never FAILED.
 */
export const EUM_ERROR_RULES: ProviderErrorRules = {
  permanent: new Set(),
  // ThrottlingException is also an AWS common error; listed because SendTextMessage documents it.
  throttling: new Set(['ThrottlingException']),
  // A missing configuration set, origination identity or protect configuration; a disabled account.
  configuration: new Set(['AccessDeniedException', 'ResourceNotFoundException', 'ConflictException', 'ValidationException', 'ServiceQuotaExceededException']),
  reasons: {
    ConflictException: {
      permanent: new Set([
        'DESTINATION_PHONE_NUMBER_OPTED_OUT',
        'DESTINATION_COUNTRY_BLOCKED_BY_PROTECT_CONFIGURATION',
        'DESTINATION_PHONE_NUMBER_BLOCKED_BY_PROTECT_NUMBER_OVERRIDE',
      ]),
      labels: {
        DESTINATION_PHONE_NUMBER_OPTED_OUT: EUM_OPTED_OUT,
        DESTINATION_COUNTRY_BLOCKED_BY_PROTECT_CONFIGURATION: 'ProtectBlocked',
        DESTINATION_PHONE_NUMBER_BLOCKED_BY_PROTECT_NUMBER_OVERRIDE: 'ProtectBlocked',
      },
    },
    ValidationException: {
      // The destination's country is refused by the account's own rules, or a message part costs more than MaxPrice.
      permanent: new Set(['DESTINATION_COUNTRY_BLOCKED', 'PRICE_OVER_THRESHOLD', 'MAXIMUM_SIZE_EXCEEDED', 'COUNTRY_CODE_MISMATCH']),
      labels: { PRICE_OVER_THRESHOLD: 'OverMaxPrice', DESTINATION_COUNTRY_BLOCKED: 'CountryBlocked' },
      byFields: new Set(['CANNOT_PARSE', 'FIELD_VALIDATION_FAILED', 'INVALID_PARAMETER', 'OTHER']),
      recipientFields: new Set(['DestinationPhoneNumber', 'MessageBody']),
    },
    ServiceQuotaExceededException: {
      quota: new Set(['MONTHLY_SPEND_LIMIT_REACHED_FOR_TEXT']),
    },
  },
};

export interface EumSmsSettings {
  /** The configuration set whose event destination carries the events to the status Lambda. */
  readonly configurationSetName: string;
  /** Phone number, sender id, pool (id or ARN) to send from. @default none: the service picks one */
  readonly originationIdentity?: string;
  /** Most US dollars one message part may cost (`MaxPrice`, e.g. `0.10`). @default none */
  readonly maxPrice?: string;
  /** Protect configuration applied to every send. @default none: the account's default, if any */
  readonly protectConfigurationId?: string;
  /** Seconds a message of this class may wait for hand-off (`TimeToLive`, 5 to 259,200). @default the service's 72 hours */
  readonly timeToLiveSeconds?: (messageClass: string) => number | undefined;
}

/** SendTextMessage's TimeToLive bounds (API reference). */
export const EUM_TIME_TO_LIVE = { minSeconds: 5, maxSeconds: 259_200 } as const;

/**
 * SMS through AWS End User Messaging SMS (`pinpoint-sms-voice-v2` `SendTextMessage`). It takes no
 * idempotency token either, but its `Context` comes back in every event of the message, so the key
 * and the claim version ride there and the status Lambda can settle an unknown outcome by evidence.
 */
export class EumSmsProvider implements DeliveryProvider {
  readonly keyedEvidence = true;

  constructor(
    private readonly client: PinpointSMSVoiceV2Client,
    private readonly settings: EumSmsSettings,
  ) {}

  async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
    const { message } = request;
    if (message.channel !== 'sms') return { kind: 'permanent', reason: `End User Messaging SMS cannot send ${message.channel}` };
    const { originationIdentity, maxPrice, protectConfigurationId } = this.settings;
    const ttl = this.settings.timeToLiveSeconds?.(request.messageClass);
    try {
      const result = await this.client.send(
        new SendTextMessageCommand({
          DestinationPhoneNumber: message.to,
          MessageBody: message.text,
          MessageType: request.smsType === 'Promotional' ? 'PROMOTIONAL' : 'TRANSACTIONAL',
          ConfigurationSetName: this.settings.configurationSetName,
          Context: { [EUM_KEY_CONTEXT]: request.key, [EUM_CLAIM_VERSION_CONTEXT]: String(request.claimVersion) },
          ...(originationIdentity ? { OriginationIdentity: originationIdentity } : {}),
          ...(maxPrice ? { MaxPrice: maxPrice } : {}),
          ...(protectConfigurationId ? { ProtectConfigurationId: protectConfigurationId } : {}),
          ...(ttl !== undefined ? { TimeToLive: ttl } : {}),
        }),
        { abortSignal: signal },
      );
      return result.MessageId
        ? { kind: 'sent', providerMessageId: result.MessageId }
        : { kind: 'ambiguous', reason: 'End User Messaging accepted the call but returned no MessageId' };
    } catch (error) {
      return classifyProviderError(error, EUM_ERROR_RULES);
    }
  }
}
