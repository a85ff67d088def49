import type { TransientCause } from '../../functions/core/provider/delivery-provider';
import type { EumErrorShape } from './eum-json-protocol';

/** What the sender must make of a provider error: FAILED, a retry for a cause, or an unknown outcome. */
/** How the sender must handle the error: `withdrawn-consent` is permanent, and a bulk message ends SUPPRESSED for it. */
export type ExpectedHandling = 'permanent' | 'withdrawn-consent' | 'ambiguous' | TransientCause;

/** One documented error of a send call, as it travels on the wire. */
export interface ProviderWireError {
  readonly service: 'sesv2' | 'sns' | 'sms-voice';
  /** The code on the wire (SNS's query protocol: `KMSThrottling`; the SDK names it `KMSThrottlingException`). */
  readonly code: string;
  readonly status: number;
  readonly message: string;
  readonly expected: ExpectedHandling;
  /** End User Messaging's modeled members beside the message (`Reason`, `Fields`, `ResourceType`). @default none */
  readonly modeled?: Omit<EumErrorShape, 'code' | 'message'>;
}

/**
 * Every error the SES v2 `SendEmail` and SNS `Publish` API references list, with the HTTP status
 * their service models give them (read from the SDK clients' error schemas), plus the common
 * throttling errors both answer for their quotas. A test drives each through the real SDK, and
 * test/wire/provider-error-names.test.ts checks each name against the SDK's model of the call.
 */
export const PROVIDER_WIRE_ERRORS: readonly ProviderWireError[] = [
  // SES v2 SendEmail
  { service: 'sesv2', code: 'AccountSuspendedException', status: 400, message: 'Account suspended', expected: 'configuration' },
  { service: 'sesv2', code: 'BadRequestException', status: 400, message: 'Invalid request', expected: 'permanent' },
  { service: 'sesv2', code: 'LimitExceededException', status: 400, message: 'Limit exceeded', expected: 'throttled' },
  {
    service: 'sesv2',
    code: 'MailFromDomainNotVerifiedException',
    status: 400,
    message: 'MAIL FROM domain not verified',
    expected: 'configuration',
  },
  { service: 'sesv2', code: 'MessageRejected', status: 400, message: 'Illegal address', expected: 'permanent' },
  {
    service: 'sesv2',
    code: 'MessageRejected',
    status: 400,
    message: 'Email address is not verified. The following identities failed the check in region US-EAST-1: sender@example.com',
    expected: 'configuration',
  },
  { service: 'sesv2', code: 'NotFoundException', status: 404, message: 'Configuration set <cs> does not exist.', expected: 'configuration' },
  { service: 'sesv2', code: 'SendingPausedException', status: 400, message: 'Sending paused for this account', expected: 'configuration' },
  { service: 'sesv2', code: 'TooManyRequestsException', status: 429, message: 'Too many requests', expected: 'throttled' },
  { service: 'sesv2', code: 'ThrottlingException', status: 400, message: 'Maximum sending rate exceeded.', expected: 'throttled' },
  { service: 'sesv2', code: 'ThrottlingException', status: 400, message: 'Daily message quota exceeded.', expected: 'quota-exhausted' },
  // SNS Publish
  { service: 'sns', code: 'AuthorizationError', status: 403, message: 'Not authorized', expected: 'configuration' },
  { service: 'sns', code: 'EndpointDisabled', status: 400, message: 'Endpoint is disabled', expected: 'permanent' },
  { service: 'sns', code: 'InternalError', status: 500, message: 'Internal error', expected: 'ambiguous' },
  {
    service: 'sns',
    code: 'InvalidParameter',
    status: 400,
    message: 'Invalid parameter: PhoneNumber Reason: +15550100 is not valid to publish to',
    expected: 'permanent',
  },
  {
    service: 'sns',
    code: 'InvalidParameter',
    status: 400,
    message: 'Invalid parameter: MessageAttributes Reason: AWS.SNS.SMS.SenderID is not valid',
    expected: 'configuration',
  },
  { service: 'sns', code: 'ParameterValueInvalid', status: 400, message: 'Invalid parameter value', expected: 'permanent' },
  { service: 'sns', code: 'InvalidSecurity', status: 403, message: 'Invalid security', expected: 'configuration' },
  { service: 'sns', code: 'KMSAccessDenied', status: 400, message: 'KMS access denied', expected: 'configuration' },
  { service: 'sns', code: 'KMSDisabled', status: 400, message: 'KMS key disabled', expected: 'configuration' },
  { service: 'sns', code: 'KMSInvalidState', status: 400, message: 'KMS key state invalid', expected: 'configuration' },
  { service: 'sns', code: 'KMSNotFound', status: 400, message: 'KMS key not found', expected: 'configuration' },
  { service: 'sns', code: 'KMSOptInRequired', status: 403, message: 'KMS opt-in required', expected: 'configuration' },
  { service: 'sns', code: 'KMSThrottling', status: 400, message: 'KMS throttling', expected: 'throttled' },
  { service: 'sns', code: 'NotFound', status: 404, message: 'Endpoint does not exist', expected: 'permanent' },
  { service: 'sns', code: 'PlatformApplicationDisabled', status: 400, message: 'Platform application disabled', expected: 'configuration' },
  { service: 'sns', code: 'ValidationException', status: 400, message: 'Validation failed', expected: 'permanent' },
  // Publish models no throttling error (the SDK's ThrottledException is for other operations): it throttles with the
  // common error ThrottlingException, HTTP 400, or its older query name Throttling (local/aws/documented-throttling.ts).
  { service: 'sns', code: 'Throttling', status: 400, message: 'Rate exceeded', expected: 'throttled' },
  { service: 'sns', code: 'ThrottlingException', status: 400, message: 'Rate exceeded', expected: 'throttled' },
  // End User Messaging SMS SendTextMessage: the model gives its errors no HTTP status, so an awsJson1_0 client
  // fault is a 400 and InternalServerException a 500. The reason decides where one name covers several causes.
  ...EUM_WIRE_ERRORS(),
];

function EUM_WIRE_ERRORS(): ProviderWireError[] {
  const conflict = (reason: string, expected: ExpectedHandling): ProviderWireError => ({
    service: 'sms-voice',
    code: 'ConflictException',
    status: 400,
    message: `Conflict: ${reason}`,
    expected,
    modeled: { reason, resourceType: 'phone-number' },
  });
  const validation = (reason: string, expected: ExpectedHandling, field?: string): ProviderWireError => ({
    service: 'sms-voice',
    code: 'ValidationException',
    status: 400,
    message: `Validation failed: ${reason}`,
    expected,
    modeled: { reason, ...(field ? { fields: [{ Name: field, Message: 'invalid' }] } : {}) },
  });
  return [
    conflict('DESTINATION_PHONE_NUMBER_OPTED_OUT', 'withdrawn-consent'),
    conflict('DESTINATION_COUNTRY_BLOCKED_BY_PROTECT_CONFIGURATION', 'permanent'),
    conflict('DESTINATION_PHONE_NUMBER_NOT_VERIFIED', 'configuration'),
    conflict('NO_ORIGINATION_IDENTITIES_FOUND', 'configuration'),
    validation('PRICE_OVER_THRESHOLD', 'permanent'),
    validation('CANNOT_PARSE', 'permanent', 'DestinationPhoneNumber'),
    validation('FIELD_VALIDATION_FAILED', 'configuration', 'MaxPrice'),
    validation('SENDER_ID_NOT_REGISTERED', 'configuration'),
    {
      service: 'sms-voice',
      code: 'ServiceQuotaExceededException',
      status: 400,
      message: 'Monthly spend limit reached',
      expected: 'quota-exhausted',
      modeled: { reason: 'MONTHLY_SPEND_LIMIT_REACHED_FOR_TEXT' },
    },
    { service: 'sms-voice', code: 'AccessDeniedException', status: 400, message: 'Account disabled', expected: 'configuration', modeled: { reason: 'ACCOUNT_DISABLED' } },
    { service: 'sms-voice', code: 'ResourceNotFoundException', status: 400, message: 'Configuration set not found', expected: 'configuration', modeled: { resourceType: 'configuration-set' } },
    { service: 'sms-voice', code: 'ThrottlingException', status: 400, message: 'Rate exceeded', expected: 'throttled' },
    { service: 'sms-voice', code: 'InternalServerException', status: 500, message: 'Internal server error', expected: 'ambiguous' },
  ];
}

/** The errors that refuse the recipient or the content for good: a message may end FAILED (or, for consent, SUPPRESSED) for them. */
export function isRejection(error: ProviderWireError): boolean {
  return error.expected === 'permanent' || error.expected === 'withdrawn-consent';
}

/** The errors that certainly did not send: a message refused only by these must never end UNKNOWN or FAILED. */
export function isRefusal(error: ProviderWireError): boolean {
  return !isRejection(error) && error.expected !== 'ambiguous';
}
