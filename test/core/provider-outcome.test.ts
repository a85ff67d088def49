import { describe, expect, it } from 'vitest';
import { SES_ERROR_RULES } from '../../functions/adapters/ses-email-provider';
import { classifyProviderError, redactAddresses } from '../../functions/core/provider-outcome';

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
