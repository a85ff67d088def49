import * as eum from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { describe, expect, it } from 'vitest';
import { classifyEumError, EUM_OPTED_OUT } from '../../functions/adapters/eum-sms-provider';
import type { TransientCause } from '../../functions/core/provider/delivery-provider';

/**
 * Every error SendTextMessage documents, built with the SDK's own exception classes (so the names and
 * the modeled `Reason` / `Fields` are the SDK's), classified by the adapter's rules without a network.
 * The same errors travel the wire through the real client in test/wire/eum-provider-errors.test.ts.
 */
type Expected = 'permanent' | 'ambiguous' | TransientCause;

const meta = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });
const validation = (Reason: eum.ValidationExceptionReason, Fields?: eum.ValidationExceptionField[]) =>
  new eum.ValidationException({ message: `Validation failed: ${Reason}`, Message: `Validation failed: ${Reason}`, Reason, Fields, ...meta(400) });
const conflict = (Reason: eum.ConflictExceptionReason) =>
  new eum.ConflictException({ message: `Conflict: ${Reason}`, Message: `Conflict: ${Reason}`, Reason, ResourceType: 'phone-number', ...meta(400) });
const quota = (Reason: eum.ServiceQuotaExceededExceptionReason) =>
  new eum.ServiceQuotaExceededException({ message: `Quota: ${Reason}`, Message: `Quota: ${Reason}`, Reason, ...meta(402) });

const EUM_CASES: readonly (readonly [string, Expected, Error])[] = [
  ['ConflictException DESTINATION_PHONE_NUMBER_OPTED_OUT', 'permanent', conflict('DESTINATION_PHONE_NUMBER_OPTED_OUT')],
  ['ConflictException DESTINATION_COUNTRY_BLOCKED_BY_PROTECT_CONFIGURATION', 'permanent', conflict('DESTINATION_COUNTRY_BLOCKED_BY_PROTECT_CONFIGURATION')],
  ['ConflictException DESTINATION_PHONE_NUMBER_BLOCKED_BY_PROTECT_NUMBER_OVERRIDE', 'permanent', conflict('DESTINATION_PHONE_NUMBER_BLOCKED_BY_PROTECT_NUMBER_OVERRIDE')],
  // A sandboxed account texting an unverified number: every such send fails until an operator verifies it.
  ['ConflictException DESTINATION_PHONE_NUMBER_NOT_VERIFIED', 'configuration', conflict('DESTINATION_PHONE_NUMBER_NOT_VERIFIED')],
  ['ConflictException NO_ORIGINATION_IDENTITIES_FOUND', 'configuration', conflict('NO_ORIGINATION_IDENTITIES_FOUND')],
  ['ConflictException MESSAGE_TYPE_MISMATCH', 'configuration', conflict('MESSAGE_TYPE_MISMATCH')],
  ['ConflictException RESOURCE_NOT_ACTIVE', 'configuration', conflict('RESOURCE_NOT_ACTIVE')],
  ['ConflictException without a reason', 'configuration', new eum.ConflictException({ message: 'Conflict', ...meta(400) })],
  ['ValidationException PRICE_OVER_THRESHOLD (MaxPrice)', 'permanent', validation('PRICE_OVER_THRESHOLD')],
  ['ValidationException DESTINATION_COUNTRY_BLOCKED', 'permanent', validation('DESTINATION_COUNTRY_BLOCKED')],
  ['ValidationException MAXIMUM_SIZE_EXCEEDED', 'permanent', validation('MAXIMUM_SIZE_EXCEEDED')],
  ['ValidationException CANNOT_PARSE the destination', 'permanent', validation('CANNOT_PARSE', [{ Name: 'DestinationPhoneNumber', Message: 'cannot parse' }])],
  ['ValidationException FIELD_VALIDATION_FAILED on the body', 'permanent', validation('FIELD_VALIDATION_FAILED', [{ Name: 'MessageBody', Message: 'too long' }])],
  ['ValidationException FIELD_VALIDATION_FAILED on our MaxPrice', 'configuration', validation('FIELD_VALIDATION_FAILED', [{ Name: 'MaxPrice', Message: 'pattern' }])],
  [
    'ValidationException INVALID_PARAMETER on the destination and our identity',
    'configuration',
    validation('INVALID_PARAMETER', [{ Name: 'DestinationPhoneNumber', Message: 'x' }, { Name: 'OriginationIdentity', Message: 'y' }]),
  ],
  ['ValidationException FIELD_VALIDATION_FAILED naming no field', 'configuration', validation('FIELD_VALIDATION_FAILED')],
  ['ValidationException SENDER_ID_NOT_REGISTERED', 'configuration', validation('SENDER_ID_NOT_REGISTERED')],
  ['ValidationException INVALID_IDENTITY_FOR_DESTINATION_COUNTRY', 'configuration', validation('INVALID_IDENTITY_FOR_DESTINATION_COUNTRY')],
  ['ValidationException COUNTRY_NOT_ENABLED', 'configuration', validation('COUNTRY_NOT_ENABLED')],
  ['ValidationException MISSING_PARAMETER', 'configuration', validation('MISSING_PARAMETER')],
  ['ServiceQuotaExceededException MONTHLY_SPEND_LIMIT_REACHED_FOR_TEXT', 'quota-exhausted', quota('MONTHLY_SPEND_LIMIT_REACHED_FOR_TEXT')],
  ['ServiceQuotaExceededException, another quota', 'configuration', quota('PHONE_NUMBERS_PER_ACCOUNT')],
  ['AccessDeniedException ACCOUNT_DISABLED', 'configuration', new eum.AccessDeniedException({ message: 'Account disabled', Reason: 'ACCOUNT_DISABLED', ...meta(403) })],
  ['AccessDeniedException (IAM)', 'configuration', new eum.AccessDeniedException({ message: 'not authorized', ...meta(403) })],
  ['ResourceNotFoundException (configuration set)', 'configuration', new eum.ResourceNotFoundException({ message: 'not found', ResourceType: 'configuration-set', ...meta(404) })],
  ['ThrottlingException', 'throttled', new eum.ThrottlingException({ message: 'Rate exceeded', ...meta(429) })],
  ['InternalServerException', 'ambiguous', new eum.InternalServerException({ message: 'Internal error', ...meta(500) })],
];

function handlingOf(error: Error): Expected {
  const outcome = classifyEumError(error);
  if (outcome.kind === 'sent') throw new Error('an error is never classified as sent');
  return outcome.kind === 'transient' ? outcome.cause : outcome.kind;
}

describe('End User Messaging SendTextMessage errors, by name and modeled reason', () => {
  it.each(EUM_CASES)('%s -> %s', (_label, expected, error) => {
    expect(handlingOf(error)).toBe(expected);
  });

  it('an opted-out destination is a withdrawn consent (a bulk text is SUPPRESSED OptedOut), its reason naming the documented one', () => {
    const outcome = classifyEumError(conflict('DESTINATION_PHONE_NUMBER_OPTED_OUT'));
    expect(outcome).toEqual({
      kind: 'permanent',
      reason: `${EUM_OPTED_OUT}: ConflictException DESTINATION_PHONE_NUMBER_OPTED_OUT: Conflict: DESTINATION_PHONE_NUMBER_OPTED_OUT`,
      consent: 'OptedOut',
    });
  });

  it('keeps the destination number out of a stored reason', () => {
    const error = new eum.ValidationException({ message: 'Cannot parse +44 7700 900123', Reason: 'CANNOT_PARSE', Fields: [{ Name: 'DestinationPhoneNumber', Message: 'x' }], ...meta(400) });
    const outcome = classifyEumError(error);
    expect(outcome).toMatchObject({ kind: 'permanent' });
    expect(JSON.stringify(outcome)).not.toContain('7700');
  });
});
