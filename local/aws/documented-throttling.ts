import type { WireService } from './wire-operation';

/** A limit a stand-in enforces, answered as the service documents for its send call. */
export interface DocumentedThrottle {
  readonly service: WireService;
  /** The code on the wire; the real SDK client names the error after it. */
  readonly code: string;
  readonly status: number;
  readonly message: string;
  /** The AWS page that says so. */
  readonly source: string;
}

/**
 * SES, "Errors related to the sending quotas for your Amazon SES account"
 * (https://docs.aws.amazon.com/ses/latest/dg/manage-sending-quotas-errors.html): over the account's limits "the API
 * produces a ThrottlingException error" whose message includes "Daily message quota exceeded" or "Maximum sending rate
 * exceeded". ThrottlingException is one of the SES v2 API's common errors, HTTP 400
 * (https://docs.aws.amazon.com/ses/latest/APIReference-V2/CommonErrors.html).
 */
export const SES_MAX_SENDING_RATE_EXCEEDED: DocumentedThrottle = {
  service: 'sesv2',
  code: 'ThrottlingException',
  status: 400,
  message: 'Maximum sending rate exceeded.',
  source: 'https://docs.aws.amazon.com/ses/latest/dg/manage-sending-quotas-errors.html',
};

/** The same page, for a spent daily sending quota (see {@link SES_MAX_SENDING_RATE_EXCEEDED}). */
export const SES_DAILY_QUOTA_EXCEEDED: DocumentedThrottle = { ...SES_MAX_SENDING_RATE_EXCEEDED, message: 'Daily message quota exceeded.' };

/**
 * SNS `Publish` lists no throttling error of its own (the SDK's model for Publish has none: `ThrottledException` is
 * modeled for other operations). Its throttling is the common error `ThrottlingException`, HTTP 400
 * (https://docs.aws.amazon.com/sns/latest/api/CommonErrors.html); AWS's knowledge-center article on it quotes
 * "An error occurred (ThrottlingException) when calling the publish operation: Rate exceeded"
 * (https://repost.aws/knowledge-center/sns-throttling-exception-errors).
 */
export const SNS_PUBLISH_THROTTLED: DocumentedThrottle = {
  service: 'sns',
  code: 'ThrottlingException',
  status: 400,
  message: 'Rate exceeded',
  source: 'https://docs.aws.amazon.com/sns/latest/api/CommonErrors.html',
};

/**
 * The query protocol's older name of the same common error, HTTP 400, which SNS also answers (kept as the local
 * SNS's alternative, `throttlingError: 'Throttling'`).
 */
export const SNS_PUBLISH_THROTTLING: DocumentedThrottle = { ...SNS_PUBLISH_THROTTLED, code: 'Throttling' };

/**
 * End User Messaging SMS `SendTextMessage` models `ThrottlingException` ("An error that occurred because too many
 * requests were sent during a certain amount of time"); awsJson1_0 gives a client fault HTTP 400
 * (https://docs.aws.amazon.com/pinpoint/latest/apireference_smsvoicev2/API_SendTextMessage.html).
 */
export const EUM_SEND_TEXT_THROTTLED: DocumentedThrottle = {
  service: 'sms-voice',
  code: 'ThrottlingException',
  status: 400,
  message: 'Rate exceeded',
  source: 'https://docs.aws.amazon.com/pinpoint/latest/apireference_smsvoicev2/API_SendTextMessage.html',
};
