import { describe, expect, it } from 'vitest';
import { SES_ERROR_RULES } from '../../../functions/adapters/ses-email-provider';
import { classifyProviderError, redactAddresses, type CallProgress } from '../../../functions/core/provider/provider-outcome';

const err = (name: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(`${name} happened`), { name, ...extra });

describe('provider outcome classification (pure)', () => {
  it.each([
    ['MessageRejected', err('MessageRejected', { $metadata: { httpStatusCode: 400 } }), 'permanent'],
    ['TooManyRequestsException', err('TooManyRequestsException', { $metadata: { httpStatusCode: 429 } }), 'transient'],
    ['SendingPausedException (operator must act; not sent)', err('SendingPausedException'), 'transient'],
    ['an undocumented 4xx (retried and counted, never a silent FAILED)', err('SomethingNew', { $metadata: { httpStatusCode: 400 } }), 'transient'],
    ['403 access denied', err('AccessDeniedException', { $metadata: { httpStatusCode: 403 } }), 'transient'],
    ['SES MessageRejected for an unverified From identity (configuration)', err('MessageRejected', { message: 'Email address is not verified. The following identities failed the check in region US-EAST-1: a@b.co' }), 'transient'],
    ['SES daily quota (ThrottlingException, 400)', err('ThrottlingException', { message: 'Daily message quota exceeded.', $metadata: { httpStatusCode: 400 } }), 'transient'],
    ['a 5xx', err('InternalFailure', { $metadata: { httpStatusCode: 500 } }), 'ambiguous'],
    ['an abort at the send timeout', err('AbortError'), 'ambiguous'],
    ['a request timeout', err('TimeoutError', { code: 'ETIMEDOUT' }), 'ambiguous'],
    [
      'a connect timeout',
      Object.assign(new Error('the request socket did not establish a connection with the server within 3000 ms'), { name: 'TimeoutError' }),
      'transient',
    ],
    ['connection refused', err('Error', { code: 'ECONNREFUSED' }), 'transient'],
    ['connection reset (request may have left)', err('TimeoutError', { code: 'ECONNRESET' }), 'ambiguous'],
    // How Node reports a reset: a plain Error, only its code says it; SES may already have accepted the mail.
    ['a real connection reset: Error with code ECONNRESET', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'ambiguous'],
    ['a broken pipe after the request was written', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), 'ambiguous'],
    ['something that is not an Error', 'weird', 'ambiguous'],
  ] as const)('%s -> %s', (_name, error, kind) => {
    expect(classifyProviderError(error, SES_ERROR_RULES).kind).toBe(kind);
  });

  it('keeps addresses out of stored and logged reasons', () => {
    expect(redactAddresses('Address blacklisted: jane.doe+x@mail.example.com, +44 7700 900123')).toBe(
      'Address blacklisted: <email>, <number>',
    );
  });
});

/** Rules that name nothing: whatever is classified below is classified by the rules every AWS API shares. */
const NO_RULES = { permanent: new Set<string>(), throttling: new Set<string>(), configuration: new Set<string>() };

describe('errors every AWS API may answer with, whatever the provider rules list', () => {
  it.each(['Throttling', 'ThrottlingException', 'RequestThrottled', 'RequestThrottledException', 'RequestLimitExceeded'])(
    '%s is a throttle: certainly not sent, retried after a backoff',
    (name) => {
      expect(classifyProviderError(err(name), NO_RULES)).toMatchObject({ kind: 'transient', cause: 'throttled' });
    },
  );

  it.each([
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
  ])('%s is a configuration fault: nothing sent, an operator must act', (name) => {
    expect(classifyProviderError(err(name, { $metadata: { httpStatusCode: 403 } }), NO_RULES)).toMatchObject({
      kind: 'transient',
      cause: 'configuration',
    });
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH'])(
    'network code %s (no connection was made) is unavailable: nothing sent, and the reason starts with the code',
    (code) => {
      expect(classifyProviderError(err('Error', { code }), NO_RULES)).toEqual({
        kind: 'transient',
        cause: 'unavailable',
        reason: `${code}: Error: Error happened`,
      });
    },
  );
});

describe('the reason a classification stores', () => {
  it.each([
    ['a string', 'weird', 'UnknownError: weird'],
    ['null', null, 'UnknownError: null'],
    ['undefined', undefined, 'UnknownError: undefined'],
    ['a number', 42, 'UnknownError: 42'],
  ] as const)('a thrown value that is not an object (%s) is ambiguous, named UnknownError', (_what, thrown, reason) => {
    expect(classifyProviderError(thrown, NO_RULES)).toEqual({ kind: 'ambiguous', reason, unanswered: 'UnknownError' });
  });

  it('an abort at the send timeout says SendTimeout before the error', () => {
    expect(classifyProviderError(err('AbortError', { message: 'The operation was aborted' }), NO_RULES)).toEqual({
      kind: 'ambiguous',
      reason: 'SendTimeout: AbortError: The operation was aborted',
      unanswered: 'AbortError',
    });
  });

  it('a connect timeout says ConnectTimeout before the error', () => {
    const message = 'socket did not establish a connection with the server within 3000 ms';
    expect(classifyProviderError(err('TimeoutError', { message }), NO_RULES)).toEqual({
      kind: 'transient',
      cause: 'unavailable',
      reason: `ConnectTimeout: TimeoutError: ${message}`,
    });
  });

  it('is cut at 500 characters (a provider message can be long)', () => {
    const outcome = classifyProviderError(err('InternalFailure', { message: 'x'.repeat(2_000) }), NO_RULES);
    expect(outcome).toEqual({ kind: 'ambiguous', reason: `InternalFailure: ${'x'.repeat(2_000)}`.slice(0, 500), unanswered: 'InternalFailure' });
  });
});

describe('how far the call got decides before any name: a call stopped before its request was handed to the HTTP handler is certain', () => {
  const uriError = new URIError('URI malformed');
  const throttled = err('ThrottlingException', { $metadata: { httpStatusCode: 400 } });

  it("stopped while the request was built from the message (the serializer): permanent, the message's own content, whatever the error", () => {
    expect(classifyProviderError(uriError, NO_RULES, 'content')).toEqual({ kind: 'permanent', reason: 'NotSent: URIError: URI malformed' });
    expect(classifyProviderError(err('AbortError'), NO_RULES, 'content')).toMatchObject({ kind: 'permanent' });
  });

  it("stopped elsewhere before the handler (credentials, endpoint, signing): the environment's, a configuration fault, whatever the error", () => {
    const credentials = err('CredentialsProviderError', { message: 'Could not load credentials from any providers' });
    expect(classifyProviderError(credentials, NO_RULES, 'environment')).toEqual({
      kind: 'transient',
      cause: 'configuration',
      reason: 'NotSent: CredentialsProviderError: Could not load credentials from any providers',
    });
    expect(classifyProviderError(err('AbortError'), NO_RULES, 'environment')).toMatchObject({ kind: 'transient', cause: 'configuration' });
  });

  it.each(['handed-over', 'unknown'] as const satisfies readonly CallProgress[])('%s: by the error, as a call that may have left', (progress) => {
    expect(classifyProviderError(uriError, NO_RULES, progress)).toEqual({ kind: 'ambiguous', reason: 'URIError: URI malformed', unanswered: 'URIError' });
    expect(classifyProviderError(throttled, NO_RULES, progress)).toMatchObject({ kind: 'transient', cause: 'throttled' });
  });
});

describe('an unknown outcome says whether the provider answered: only an unanswered one can loop', () => {
  it.each([
    ['an abort at the send timeout', err('AbortError'), 'AbortError'],
    ['a request timeout', err('TimeoutError', { code: 'ETIMEDOUT' }), 'ETIMEDOUT'],
    ['a connection reset, by its code', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 'ECONNRESET'],
    ['an error the SDK threw with no response', new TypeError('Invalid character in header content'), 'TypeError'],
  ])('%s: unanswered, named %s', (_what, error, unanswered) => {
    expect(classifyProviderError(error, NO_RULES)).toMatchObject({ kind: 'ambiguous', unanswered });
  });

  it('a 5xx is an answer from the provider: no unanswered kind', () => {
    const outcome = classifyProviderError(err('InternalFailure', { $metadata: { httpStatusCode: 500 } }), NO_RULES);
    expect(outcome).toEqual({ kind: 'ambiguous', reason: 'InternalFailure: InternalFailure happened' });
  });
});

describe('an undocumented error by HTTP status', () => {
  it.each([
    [301, 'ambiguous'],
    [399, 'ambiguous'],
    [400, 'transient'],
    [404, 'transient'],
    [499, 'transient'],
    [500, 'ambiguous'],
    [503, 'ambiguous'],
  ] as const)('status %i -> %s (only a 4xx says the request was refused)', (httpStatusCode, kind) => {
    expect(classifyProviderError(err('SomethingNew', { $metadata: { httpStatusCode } }), NO_RULES).kind).toBe(kind);
  });

  it('an undocumented 4xx is counted as unrecognised, never FAILED', () => {
    expect(classifyProviderError(err('SomethingNew', { $metadata: { httpStatusCode: 400 } }), NO_RULES)).toMatchObject({
      kind: 'transient',
      cause: 'unrecognised',
    });
  });
});

describe('phone numbers and addresses are redacted from reasons', () => {
  it.each([
    ['an E.164 number', 'not valid to publish to: +15550100123', 'not valid to publish to: <number>'],
    ['a national number without +', 'call 07700900123 now', 'call <number> now'],
    ['a number written with separators', 'number 555-010-0123 failed', 'number <number> failed'],
    ['an address in angle brackets', 'rejected <jane@example.com>', 'rejected <<email>>'],
  ])('%s', (_what, text, redacted) => {
    expect(redactAddresses(text)).toBe(redacted);
  });

  it('short digit runs (counts, codes) are kept', () => {
    expect(redactAddresses('Rate exceeded: 14 per second, code 4291')).toBe('Rate exceeded: 14 per second, code 4291');
  });
});
