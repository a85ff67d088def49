import type { DeliveryOutcome, TransientCause } from './delivery-provider';

/**
 * A provider's documented error names (the SDK exception `name`), sorted by what they mean
 * for a retry. Names decide, never HTTP status ranges: SNS throttles with a 400 as well as a 429.
 */
export interface ProviderErrorRules {
  /** Rejections of this recipient or this content that will repeat: mark FAILED. */
  readonly permanent: ReadonlySet<string>;
  /** Rate or quota refusals: certainly not sent; back off and retry with the same key. */
  readonly throttling: ReadonlySet<string>;
  /**
   * The account or its setup refuses every send until an operator acts (sending paused, an
   * unverified identity, a missing configuration set, a denied key): retry, count, alarm.
   */
  readonly configuration: ReadonlySet<string>;
  /**
   * A permanent-named error whose message shows it is about our setup, not the recipient
   * (SES `MessageRejected: Email address is not verified`): treated as a configuration fault.
   * @default none
   */
  readonly configurationMessages?: readonly RegExp[];
  /** A throttling message that means the daily quota is spent, not the rate. @default none */
  readonly quotaMessages?: readonly RegExp[];
  /**
   * Errors whose modeled `Reason` field decides, by error name (End User Messaging answers one
   * `ValidationException` or `ConflictException` for faults of ours and refusals of the recipient alike).
   * A reason a rule does not list falls back to the name's set above. @default none
   */
  readonly reasons?: Readonly<Record<string, ReasonRules>>;
}

/** How one error name's `Reason` values are handled (see {@link ProviderErrorRules.reasons}). */
export interface ReasonRules {
  /** Reasons about this recipient or this content: FAILED. @default none */
  readonly permanent?: ReadonlySet<string>;
  /** Reasons that mean a spent quota (a monthly spend limit): paused like a spent daily quota. @default none */
  readonly quota?: ReadonlySet<string>;
  /**
   * Reasons that name the refused request fields in `Fields`: permanent when every field named is one of
   * `recipientFields` (the destination, the body), else a configuration fault (a field of ours). @default none
   */
  readonly byFields?: ReadonlySet<string>;
  /** The request fields that are the recipient's or the content's. @default none */
  readonly recipientFields?: ReadonlySet<string>;
  /** A word put before the stored reason (`OptedOut: ...`), for readers that act on it. @default none */
  readonly labels?: Readonly<Record<string, string>>;
}

/** Throttling names every AWS service may answer with (the common errors), whatever its own list says. */
const AWS_COMMON_THROTTLING = new Set(['Throttling', 'ThrottlingException', 'RequestThrottled', 'RequestThrottledException', 'RequestLimitExceeded']);

/** Credential and permission errors common to every AWS API: nothing was sent, an operator must act. */
const AWS_COMMON_CONFIGURATION = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'ExpiredToken',
  'ExpiredTokenException',
  'OptInRequired',
]);

const NOT_SENT_NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  /** A modeled reason (End User Messaging). */
  Reason?: unknown;
  /** The refused fields of a modeled validation error (End User Messaging). */
  Fields?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/**
 * Classifies an error thrown by a provider SDK call. Pure: looks only at the error's
 * name, code, message and HTTP status. When in doubt the answer is `ambiguous`,
 * because calling a maybe-sent message "not sent" is how duplicates happen; and no
 * unrecognised error is ever `permanent`, because that would drop a message silently.
 */
export function classifyProviderError(error: unknown, rules: ProviderErrorRules): DeliveryOutcome {
  const shape: ErrorShape = typeof error === 'object' && error !== null ? (error as ErrorShape) : {};
  const name = typeof shape.name === 'string' ? shape.name : 'UnknownError';
  const code = typeof shape.code === 'string' ? shape.code : undefined;
  const message = typeof shape.message === 'string' ? shape.message : String(error);
  const status = typeof shape.$metadata?.httpStatusCode === 'number' ? shape.$metadata.httpStatusCode : undefined;
  const reason = redactAddresses(`${name}: ${message}`).slice(0, 500);
  const transient = (cause: TransientCause, text = reason): DeliveryOutcome => ({ kind: 'transient', cause, reason: text });

  if (rules.throttling.has(name) || AWS_COMMON_THROTTLING.has(name)) {
    return transient(rules.quotaMessages?.some((m) => m.test(message)) ? 'quota-exhausted' : 'throttled');
  }
  const byReason = typeof shape.Reason === 'string' ? classifyByReason(name, shape.Reason, shape.Fields, message, rules) : undefined;
  if (byReason) return byReason;
  if (rules.configuration.has(name) || AWS_COMMON_CONFIGURATION.has(name)) return transient('configuration');
  if (rules.permanent.has(name)) {
    return rules.configurationMessages?.some((m) => m.test(message)) ? transient('configuration') : { kind: 'permanent', reason };
  }
  if (name === 'AbortError') return { kind: 'ambiguous', reason: `SendTimeout: ${reason}` };
  if (name === 'TimeoutError') {
    return /did not establish a connection/.test(message) ? transient('unavailable', `ConnectTimeout: ${reason}`) : { kind: 'ambiguous', reason };
  }
  if (code && NOT_SENT_NETWORK_CODES.has(code)) return transient('unavailable', `${code}: ${reason}`);
  // An error the provider does not document for this call. A 4xx says the request was refused
  // (not acted on); retried and counted, it reaches the DLQ with its reason instead of FAILED.
  if (status !== undefined && status >= 400 && status < 500) return transient('unrecognised');
  return { kind: 'ambiguous', reason };
}

/** The reason-level rule of an error name, if it has one for this reason. */
function classifyByReason(name: string, reason: string, fields: unknown, message: string, rules: ProviderErrorRules): DeliveryOutcome | undefined {
  const rule = rules.reasons?.[name];
  if (!rule) return undefined;
  const label = rule.labels?.[reason];
  const text = redactAddresses(`${label ? `${label}: ` : ''}${name} ${reason}: ${message}`).slice(0, 500);
  if (rule.permanent?.has(reason)) return { kind: 'permanent', reason: text };
  if (rule.quota?.has(reason)) return { kind: 'transient', cause: 'quota-exhausted', reason: text };
  if (rule.byFields?.has(reason)) {
    const named = fieldNames(fields);
    const recipientOnly = named.length > 0 && named.every((field) => rule.recipientFields?.has(field));
    return recipientOnly ? { kind: 'permanent', reason: text } : { kind: 'transient', cause: 'configuration', reason: text };
  }
  return undefined;
}

function fieldNames(fields: unknown): string[] {
  if (!Array.isArray(fields)) return [];
  return fields.flatMap((field: unknown) => {
    const fieldName = typeof field === 'object' && field !== null ? (field as { Name?: unknown }).Name : undefined;
    return typeof fieldName === 'string' ? [fieldName] : [];
  });
}

/** Removes email addresses and phone numbers from provider messages before they are stored or logged. */
export function redactAddresses(text: string): string {
  return text
    .replace(/[^\s@<>"',;:]+@[^\s@<>"',;:]+\.[^\s@<>"',;:]+/g, '<email>')
    .replace(/\+?\d[\d\s().-]{5,}\d/g, '<number>');
}
