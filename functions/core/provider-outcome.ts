import type { DeliveryOutcome } from './delivery-provider';

/** A provider's error names, sorted by what they mean for a retry. */
export interface ProviderErrorRules {
  /** Rejections that will repeat: mark FAILED. */
  readonly permanent: ReadonlySet<string>;
  /** Refusals that certainly did not send: retry later with the same key. */
  readonly transient: ReadonlySet<string>;
}

const NOT_SENT_NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: unknown };
}

/**
 * Classifies an error thrown by a provider SDK call. Pure: looks only at the error's
 * name, code, message and HTTP status. When in doubt the answer is `ambiguous`,
 * because calling a maybe-sent message "not sent" is how duplicates happen.
 */
export function classifyProviderError(error: unknown, rules: ProviderErrorRules): DeliveryOutcome {
  const shape: ErrorShape = typeof error === 'object' && error !== null ? (error as ErrorShape) : {};
  const name = typeof shape.name === 'string' ? shape.name : 'UnknownError';
  const code = typeof shape.code === 'string' ? shape.code : undefined;
  const message = typeof shape.message === 'string' ? shape.message : String(error);
  const status = typeof shape.$metadata?.httpStatusCode === 'number' ? shape.$metadata.httpStatusCode : undefined;
  const reason = redactAddresses(`${name}: ${message}`).slice(0, 500);

  if (rules.permanent.has(name)) return { kind: 'permanent', reason };
  if (rules.transient.has(name)) return { kind: 'transient', reason };
  if (name === 'AbortError') return { kind: 'ambiguous', reason: `SendTimeout: ${reason}` };
  if (name === 'TimeoutError') {
    return /did not establish a connection/.test(message)
      ? { kind: 'transient', reason: `ConnectTimeout: ${reason}` }
      : { kind: 'ambiguous', reason };
  }
  if (code && NOT_SENT_NETWORK_CODES.has(code)) return { kind: 'transient', reason: `${code}: ${reason}` };
  if (status !== undefined) {
    if (status === 429 || status === 401 || status === 403) return { kind: 'transient', reason };
    if (status >= 400 && status < 500) return { kind: 'permanent', reason };
  }
  return { kind: 'ambiguous', reason };
}

/** Removes email addresses and phone numbers from provider messages before they are stored or logged. */
export function redactAddresses(text: string): string {
  return text
    .replace(/[^\s@<>"',;:]+@[^\s@<>"',;:]+\.[^\s@<>"',;:]+/g, '<email>')
    .replace(/\+?\d[\d\s().-]{6,}\d/g, '<number>');
}
