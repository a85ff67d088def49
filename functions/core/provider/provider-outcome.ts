import type { ConsentReason } from '../policy/consent';
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
   * Refusals because the recipient withdrew consent (an opted-out number): permanent, and SUPPRESSED
   * with `consent` as the reason instead of FAILED. @default none
   */
  readonly withdrawnConsent?: { readonly names: ReadonlySet<string>; readonly consent: ConsentReason };
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
  $metadata?: { httpStatusCode?: unknown };
}

/**
 * How far a failed call got, as the adapter's own markers in the SDK saw it (adapters/sdk-call-progress.ts):
 * - `content`: it stopped while the request was built from this message (the serializer): certainly not
 *   sent, and this message fails the same way on every attempt (a lone surrogate in an SNS query);
 * - `environment`: it stopped before the request was handed to the HTTP handler, outside that step
 *   (credentials, endpoint, signing, a middleware): certainly not sent, and every message fails alike until
 *   the environment is fixed;
 * - `handed-over`: the HTTP handler had the request: it may have left;
 * - `unknown`: no marker ran (a stubbed client): judged by the error alone, as a call that may have left.
 */
export type CallProgress = 'content' | 'environment' | 'handed-over' | 'unknown';

/**
 * Classifies an error thrown by a provider SDK call. Pure. A call that stopped before its request was handed
 * to the HTTP handler is certain, whatever the error (`NotSent: ...`): permanent for the message's own content,
 * a configuration fault for the environment's. Past that point it looks only at the error's name, code,
 * message and HTTP status. When in doubt the answer is `ambiguous`, because calling a maybe-sent message
 * "not sent" is how duplicates happen; and no unrecognised error is ever `permanent`, because that would
 * drop a message silently.
 */
export function classifyProviderError(error: unknown, rules: ProviderErrorRules, progress: CallProgress = 'unknown'): DeliveryOutcome {
  const shape: ErrorShape = typeof error === 'object' && error !== null ? (error as ErrorShape) : {};
  const name = typeof shape.name === 'string' ? shape.name : 'UnknownError';
  const code = typeof shape.code === 'string' ? shape.code : undefined;
  const message = typeof shape.message === 'string' ? shape.message : String(error);
  const status = typeof shape.$metadata?.httpStatusCode === 'number' ? shape.$metadata.httpStatusCode : undefined;
  const reason = redactAddresses(`${name}: ${message}`).slice(0, 500);
  const transient = (cause: TransientCause, text = reason): DeliveryOutcome => ({ kind: 'transient', cause, reason: text });
  if (progress === 'content') return { kind: 'permanent', reason: `NotSent: ${reason}` };
  if (progress === 'environment') return transient('configuration', `NotSent: ${reason}`);
  // Without an answer from the provider, the kind of failure: the same kind again and again on one key is a loop.
  const ambiguous = (text: string): DeliveryOutcome => ({ kind: 'ambiguous', reason: text, ...(status === undefined ? { unanswered: code ?? name } : {}) });

  if (rules.withdrawnConsent?.names.has(name)) return { kind: 'permanent', reason, consent: rules.withdrawnConsent.consent };
  if (rules.throttling.has(name) || AWS_COMMON_THROTTLING.has(name)) {
    return transient(rules.quotaMessages?.some((m) => m.test(message)) ? 'quota-exhausted' : 'throttled');
  }
  if (rules.configuration.has(name) || AWS_COMMON_CONFIGURATION.has(name)) return transient('configuration');
  if (rules.permanent.has(name)) {
    return rules.configurationMessages?.some((m) => m.test(message)) ? transient('configuration') : { kind: 'permanent', reason };
  }
  if (name === 'AbortError') return ambiguous(`SendTimeout: ${reason}`);
  if (name === 'TimeoutError') {
    return /did not establish a connection/.test(message) ? transient('unavailable', `ConnectTimeout: ${reason}`) : ambiguous(reason);
  }
  if (code && NOT_SENT_NETWORK_CODES.has(code)) return transient('unavailable', `${code}: ${reason}`);
  // An error the provider does not document for this call. A 4xx says the request was refused
  // (not acted on); retried and counted, it reaches the DLQ with its reason instead of FAILED.
  if (status !== undefined && status >= 400 && status < 500) return transient('unrecognised');
  return ambiguous(reason);
}

/** Removes email addresses and phone numbers from provider messages before they are stored or logged. */
export function redactAddresses(text: string): string {
  return text
    .replace(/[^\s@<>"',;:]+@[^\s@<>"',;:]+\.[^\s@<>"',;:]+/g, '<email>')
    .replace(/\+?\d[\d\s().-]{5,}\d/g, '<number>');
}
