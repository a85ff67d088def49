import { SendTextMessageCommand, type PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import type { DeliveryOutcome, DeliveryProvider } from '../core/provider/delivery-provider';
import { classifyProviderError, redactAddresses, type CallProgress, type ProviderErrorRules } from '../core/provider/provider-outcome';
import type { ConsentReason } from '../core/policy/consent';
import { sendTracked } from './sdk-call-progress';
import type { ProviderRequest } from '../core/templates/rendered-message';

// Each Set is marked pure: a bundle built for SNS (see SHIPPED_SMS_PROVIDER_IDENTIFIER in lib/destination-options.ts) drops this module.

/** The `Context` key that carries our idempotency key into every event of the message (delivery evidence). */
export const EUM_KEY_CONTEXT = 'idempotency-key';
/** The `Context` key that carries the sending attempt's claim version: a refusal proves only that attempt unsent. */
export const EUM_CLAIM_VERSION_CONTEXT = 'claim-version';
/** The word an opted-out destination's FAILED reason starts with (`OptedOut: ConflictException ...`). */
export const EUM_OPTED_OUT = 'OptedOut';

/**
 * `SendTextMessage`'s documented errors by name (API reference: AccessDeniedException, ConflictException,
 * InternalServerException, ResourceNotFoundException, ServiceQuotaExceededException, ThrottlingException,
 * ValidationException): every name but throttling and the 5xx is a configuration fault, unless its modeled
 * `Reason` says otherwise ({@link EUM_REASON_RULES}). Retried and alarmed, never FAILED.
 */
export const EUM_ERROR_RULES: ProviderErrorRules = {
  permanent: /* @__PURE__ */ new Set(),
  // ThrottlingException is also an AWS common error; listed because SendTextMessage documents it.
  throttling: /* @__PURE__ */ new Set(['ThrottlingException']),
  // A missing configuration set, origination identity or protect configuration; a disabled account.
  configuration: /* @__PURE__ */ new Set(['AccessDeniedException', 'ResourceNotFoundException', 'ConflictException', 'ValidationException', 'ServiceQuotaExceededException']),
};

/** How one error name's modeled `Reason` values are handled; a reason not listed falls back to the name's rule. */
interface ReasonRules {
  /** Reasons about this recipient or this content: FAILED. */
  readonly permanent?: ReadonlySet<string>;
  /** Reasons that mean a spent quota (the monthly spend limit): paused like a spent daily quota. */
  readonly quota?: ReadonlySet<string>;
  /** Reasons whose `Fields` decide: permanent when every field named is the destination or the body, else ours. */
  readonly byFields?: ReadonlySet<string>;
  /** A word put before the stored reason (`OptedOut: ...`), for readers that act on it. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Permanent reasons that are the recipient's withdrawn consent: a bulk message is SUPPRESSED for it, as for SNS. */
  readonly withdrawnConsent?: Readonly<Record<string, ConsentReason>>;
}

/** The request fields that are the recipient's or the content's. */
const RECIPIENT_FIELDS: ReadonlySet<string> = /* @__PURE__ */ new Set(['DestinationPhoneNumber', 'MessageBody']);

/**
 * One `ValidationException` or `ConflictException` covers our faults and the recipient's refusals alike, so the
 * modeled `Reason` (and, for some validation reasons, the refused `Fields`) decides.
 */
export const EUM_REASON_RULES: Readonly<Record<string, ReasonRules>> = {
  ConflictException: {
    permanent: /* @__PURE__ */ new Set([
      'DESTINATION_PHONE_NUMBER_OPTED_OUT',
      'DESTINATION_COUNTRY_BLOCKED_BY_PROTECT_CONFIGURATION',
      'DESTINATION_PHONE_NUMBER_BLOCKED_BY_PROTECT_NUMBER_OVERRIDE',
    ]),
    withdrawnConsent: { DESTINATION_PHONE_NUMBER_OPTED_OUT: 'OptedOut' },
    labels: {
      DESTINATION_PHONE_NUMBER_OPTED_OUT: EUM_OPTED_OUT,
      DESTINATION_COUNTRY_BLOCKED_BY_PROTECT_CONFIGURATION: 'ProtectBlocked',
      DESTINATION_PHONE_NUMBER_BLOCKED_BY_PROTECT_NUMBER_OVERRIDE: 'ProtectBlocked',
    },
  },
  ValidationException: {
    // The destination's country is refused by the account's own rules, or a message part costs more than MaxPrice.
    permanent: /* @__PURE__ */ new Set(['DESTINATION_COUNTRY_BLOCKED', 'PRICE_OVER_THRESHOLD', 'MAXIMUM_SIZE_EXCEEDED', 'COUNTRY_CODE_MISMATCH']),
    labels: { PRICE_OVER_THRESHOLD: 'OverMaxPrice', DESTINATION_COUNTRY_BLOCKED: 'CountryBlocked' },
    byFields: /* @__PURE__ */ new Set(['CANNOT_PARSE', 'FIELD_VALIDATION_FAILED', 'INVALID_PARAMETER', 'OTHER']),
  },
  ServiceQuotaExceededException: {
    quota: /* @__PURE__ */ new Set(['MONTHLY_SPEND_LIMIT_REACHED_FOR_TEXT']),
  },
};

/**
 * A SendTextMessage error as an outcome: by its modeled reason where {@link EUM_REASON_RULES} has one, else as
 * every provider's errors are ({@link classifyProviderError} with {@link EUM_ERROR_RULES}).
 */
export function classifyEumError(error: unknown, progress: CallProgress = 'unknown'): DeliveryOutcome {
  const shape = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; Reason?: unknown; Fields?: unknown; message?: unknown };
  const rule = typeof shape.name === 'string' ? EUM_REASON_RULES[shape.name] : undefined;
  const reason = typeof shape.Reason === 'string' ? shape.Reason : undefined;
  if (!rule || reason === undefined) return classifyProviderError(error, EUM_ERROR_RULES, progress);
  const label = rule.labels?.[reason];
  const text = redactAddresses(`${label ? `${label}: ` : ''}${String(shape.name)} ${reason}: ${String(shape.message)}`).slice(0, 500);
  if (rule.permanent?.has(reason)) {
    const consent = rule.withdrawnConsent?.[reason];
    return { kind: 'permanent', reason: text, ...(consent ? { consent } : {}) };
  }
  if (rule.quota?.has(reason)) return { kind: 'transient', cause: 'quota-exhausted', reason: text };
  if (rule.byFields?.has(reason)) {
    const fields = Array.isArray(shape.Fields) ? shape.Fields.map((field: { Name?: unknown }) => field?.Name) : [];
    const recipientOnly = fields.length > 0 && fields.every((name) => typeof name === 'string' && RECIPIENT_FIELDS.has(name));
    return recipientOnly ? { kind: 'permanent', reason: text } : { kind: 'transient', cause: 'configuration', reason: text };
  }
  return classifyProviderError(error, EUM_ERROR_RULES, progress);
}

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
 * A factory, not a class: a class's name block would keep this module in a bundle built for SNS.
 */
export function eumSmsProvider(client: PinpointSMSVoiceV2Client, settings: EumSmsSettings): DeliveryProvider & { readonly keyedEvidence: true; readonly timeToLive: true } {
  return {
    keyedEvidence: true,
    timeToLive: true,
    async send(request: ProviderRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
      const { message } = request;
      if (message.channel !== 'sms') return { kind: 'permanent', reason: `End User Messaging SMS cannot send ${message.channel}` };
      const { originationIdentity, maxPrice, protectConfigurationId } = settings;
      // What is left of the class's time to live, counted from the event by the send gate; else the class's own.
      const ttl = request.lifetimeLeftSeconds ?? settings.timeToLiveSeconds?.(request.messageClass);
      const command = new SendTextMessageCommand({
        DestinationPhoneNumber: message.to,
        MessageBody: message.text,
        MessageType: request.smsType === 'Promotional' ? 'PROMOTIONAL' : 'TRANSACTIONAL',
        ConfigurationSetName: settings.configurationSetName,
        Context: { [EUM_KEY_CONTEXT]: request.key, [EUM_CLAIM_VERSION_CONTEXT]: String(request.claimVersion) },
        ...(originationIdentity ? { OriginationIdentity: originationIdentity } : {}),
        ...(maxPrice ? { MaxPrice: maxPrice } : {}),
        ...(protectConfigurationId ? { ProtectConfigurationId: protectConfigurationId } : {}),
        ...(ttl !== undefined ? { TimeToLive: ttl } : {}),
      });
      // Markers on the command: an error before the request was handed over is certain (not sent), never unknown.
      return sendTracked(command, (c) => client.send(c, { abortSignal: signal }), { service: 'End User Messaging', classify: classifyEumError });
    },
  };
}
