import * as ses from '@aws-sdk/client-sesv2';
import * as sns from '@aws-sdk/client-sns';
import { describe, expect, it } from 'vitest';
import { SES_ERROR_RULES } from '../../functions/adapters/ses-email-provider';
import { SNS_ERROR_RULES } from '../../functions/adapters/sns-provider';
import type { TransientCause } from '../../functions/core/provider/delivery-provider';
import { classifyProviderError } from '../../functions/core/provider/provider-outcome';

/**
 * Each documented SendEmail / Publish error as the SDK names it (its own exception classes, so the
 * names are the SDK's, not ours), classified by the adapter's rules without a network. The same
 * errors go through the real SDK on the wire in test/wire/provider-errors.test.ts; this file pins the
 * rules alone, in milliseconds.
 */
type Expected = 'permanent' | 'ambiguous' | TransientCause;

interface ExceptionOptions {
  message: string;
  /** SNS ValidationException's own field, beside the standard message. */
  Message: string;
  $metadata: { httpStatusCode?: number };
}
type ExceptionClass = new (options: ExceptionOptions) => Error;

const raise = (Type: ExceptionClass, message: string, httpStatusCode = 400): Error => new Type({ message, Message: message, $metadata: { httpStatusCode } });
/** A common AWS error the service model does not list as a class (ThrottlingException from SES, Throttling from SNS). */
const common = (name: string, message: string, httpStatusCode = 400): Error =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode } });

function handlingOf(error: Error, rules: typeof SES_ERROR_RULES): Expected {
  const outcome = classifyProviderError(error, rules);
  if (outcome.kind === 'sent') throw new Error('an error is never classified as sent');
  return outcome.kind === 'transient' ? outcome.cause : outcome.kind;
}

const SES_CASES: readonly (readonly [string, Expected, Error])[] = [
  ['AccountSuspendedException', 'configuration', raise(ses.AccountSuspendedException, 'Account suspended')],
  ['BadRequestException', 'permanent', raise(ses.BadRequestException, 'Invalid request')],
  ['LimitExceededException', 'throttled', raise(ses.LimitExceededException, 'Limit exceeded')],
  ['MailFromDomainNotVerifiedException', 'configuration', raise(ses.MailFromDomainNotVerifiedException, 'MAIL FROM domain not verified')],
  ['MessageRejected for the recipient', 'permanent', raise(ses.MessageRejected, 'Illegal address')],
  ['MessageRejected: identity not verified', 'configuration', raise(ses.MessageRejected, 'Email address is not verified. The following identities failed the check')],
  ['MessageRejected: identity Not Verified (any case)', 'configuration', raise(ses.MessageRejected, 'Domain NOT VERIFIED')],
  ['MessageRejected: sending paused', 'configuration', raise(ses.MessageRejected, 'Sending paused for this account.')],
  ['MessageRejected: sending is paused', 'configuration', raise(ses.MessageRejected, 'Sending is paused for this account.')],
  ['MessageRejected: sending suspended', 'configuration', raise(ses.MessageRejected, 'Sending suspended for this account.')],
  ['MessageRejected: sending is suspended', 'configuration', raise(ses.MessageRejected, 'Sending is suspended for this account.')],
  ['NotFoundException (configuration set)', 'configuration', raise(ses.NotFoundException, 'Configuration set <cs> does not exist.', 404)],
  ['SendingPausedException', 'configuration', raise(ses.SendingPausedException, 'Sending paused for this account')],
  ['TooManyRequestsException: rate', 'throttled', raise(ses.TooManyRequestsException, 'Too many requests', 429)],
  ['TooManyRequestsException: daily quota', 'quota-exhausted', raise(ses.TooManyRequestsException, 'Daily message quota exceeded.', 429)],
  ['ThrottlingException: rate', 'throttled', common('ThrottlingException', 'Maximum sending rate exceeded.')],
  ['ThrottlingException: daily quota', 'quota-exhausted', common('ThrottlingException', 'Daily message quota exceeded.')],
  ['ThrottlingException: 24 hour quota', 'quota-exhausted', common('ThrottlingException', 'Maximum sending quota exceeded: 24 hour limit')],
  ['ThrottlingException: 24-hour quota', 'quota-exhausted', common('ThrottlingException', 'You have reached your 24-hour sending quota')],
  ['InternalServiceErrorException', 'ambiguous', raise(ses.InternalServiceErrorException, 'Internal service error', 500)],
];

const SNS_CASES: readonly (readonly [string, Expected, Error])[] = [
  ['InvalidParameterException for the recipient', 'permanent', raise(sns.InvalidParameterException, 'Invalid parameter: PhoneNumber Reason: +1555 is not valid')],
  ['InvalidParameterException: our SenderID', 'configuration', raise(sns.InvalidParameterException, 'Invalid parameter: AWS.SNS.SMS.SenderID')],
  ['InvalidParameterException: our OriginationNumber', 'configuration', raise(sns.InvalidParameterException, 'Invalid parameter: OriginationNumber')],
  ['InvalidParameterException: our SMSType', 'configuration', raise(sns.InvalidParameterException, 'Invalid parameter: AWS.SNS.SMS.SMSType')],
  ['InvalidParameterException: our MessageAttributes', 'configuration', raise(sns.InvalidParameterException, 'Invalid parameter: MessageAttributes')],
  ['InvalidParameterException: our smstype (any case)', 'configuration', raise(sns.InvalidParameterException, 'invalid smstype')],
  ['InvalidParameterValueException', 'permanent', raise(sns.InvalidParameterValueException, 'Invalid parameter value')],
  ['ValidationException', 'permanent', raise(sns.ValidationException, 'Validation failed')],
  ['EndpointDisabledException', 'permanent', raise(sns.EndpointDisabledException, 'Endpoint is disabled')],
  ['NotFoundException (endpoint)', 'permanent', raise(sns.NotFoundException, 'Endpoint does not exist', 404)],
  ['ThrottledException', 'throttled', raise(sns.ThrottledException, 'Rate exceeded', 429)],
  ['KMSThrottlingException', 'throttled', raise(sns.KMSThrottlingException, 'KMS throttling')],
  ['Throttling (common)', 'throttled', common('Throttling', 'Rate exceeded')],
  ['AuthorizationErrorException', 'configuration', raise(sns.AuthorizationErrorException, 'Not authorized', 403)],
  ['InvalidSecurityException', 'configuration', raise(sns.InvalidSecurityException, 'Invalid security', 403)],
  ['PlatformApplicationDisabledException', 'configuration', raise(sns.PlatformApplicationDisabledException, 'Platform application disabled')],
  ['KMSDisabledException', 'configuration', raise(sns.KMSDisabledException, 'KMS key disabled')],
  ['KMSAccessDeniedException', 'configuration', raise(sns.KMSAccessDeniedException, 'KMS access denied')],
  ['KMSNotFoundException', 'configuration', raise(sns.KMSNotFoundException, 'KMS key not found')],
  ['KMSInvalidStateException', 'configuration', raise(sns.KMSInvalidStateException, 'KMS key state invalid')],
  ['KMSOptInRequired', 'configuration', raise(sns.KMSOptInRequired, 'KMS opt-in required', 403)],
  ['InternalErrorException', 'ambiguous', raise(sns.InternalErrorException, 'Internal error', 500)],
];

describe('SES v2 SendEmail errors, by the SES rules', () => {
  it.each(SES_CASES)('%s -> %s', (_name, expected, error) => {
    expect(handlingOf(error, SES_ERROR_RULES)).toBe(expected);
  });
});

describe('SNS Publish errors, by the SNS rules', () => {
  it.each(SNS_CASES)('%s -> %s', (_name, expected, error) => {
    expect(handlingOf(error, SNS_ERROR_RULES)).toBe(expected);
  });
});
