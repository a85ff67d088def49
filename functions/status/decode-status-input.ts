import { EventBridgeSchema, SnsSqsNotificationSchema } from '../core/event/event-envelopes';
import { validate } from '../core/schema';
import { looksLikeEumEvent, statusFromEumEvent } from './eum-sms-event';
import { statusFromSesEvent } from './ses-event';
import { statusFromSmsDeliveryLog } from './sms-delivery-log';
import { decodeCloudWatchLogs, SnsEventSchema, SqsEventSchema } from './status-envelopes';
import type { StatusEvent } from './status-event';
import { sesEventOfEventBridgeDetail } from '../core/provider/ses-eventbridge-detail';

/** Which delivery path an invocation came through. */
export type StatusInputKind = 'sns' | 'sqs' | 'cloudwatch-logs' | 'eventbridge' | 'unknown';

/** An invocation's status events, and what could not be read as one. */
export interface DecodedStatusInput {
  readonly kind: StatusInputKind;
  readonly events: readonly StatusEvent[];
  /** Records that are not delivery-status events, with a reason free of their content. */
  readonly invalid: readonly string[];
}

/**
 * Decodes whatever invoked the status Lambda:
 * - an SNS event whose messages are SES configuration-set events (SES -> SNS topic -> Lambda);
 * - an EventBridge event from `aws.ses` (SES -> default event bus -> rule -> Lambda);
 * - a CloudWatch Logs subscription payload (base64 + gzip) of SNS SMS delivery-status logs;
 * - an SQS event whose bodies are End User Messaging SMS events (configuration set -> SNS topic -> SQS queue
 *   with raw delivery -> Lambda), or SNS notifications carrying them (raw delivery off).
 * The envelopes are validated (and the logs payload decompressed) as the Powertools parser schemas do.
 */
export function decodeStatusInput(input: unknown): DecodedStatusInput {
  const events: StatusEvent[] = [];
  const invalid: string[] = [];
  const add = (result: StatusEvent | { readonly invalid: string }) => {
    if ('invalid' in result) invalid.push(result.invalid);
    else events.push(result);
  };

  if (isObject(input) && 'Records' in input && isSqsEvent(input)) {
    const sqs = validate(SqsEventSchema, input);
    if (!sqs.success) return { kind: 'sqs', events, invalid: ['SQS event does not match the SQS schema'] };
    for (const record of sqs.output.Records) {
      const message = providerMessageOf(record.body);
      if (message === undefined) invalid.push(`SQS message ${record.messageId} is not JSON`);
      else add(statusFromProviderEvent(message));
    }
    return { kind: 'sqs', events, invalid };
  }

  if (isObject(input) && 'Records' in input) {
    const sns = validate(SnsEventSchema, input);
    if (!sns.success) return { kind: 'sns', events, invalid: ['SNS event does not match the SNS schema'] };
    for (const record of sns.output.Records) {
      let message: unknown;
      try {
        message = JSON.parse(record.Sns.Message);
      } catch {
        invalid.push(`SNS message ${record.Sns.MessageId} is not JSON`);
        continue;
      }
      add(statusFromProviderEvent(message));
    }
    return { kind: 'sns', events, invalid };
  }

  if (isObject(input) && 'awslogs' in input) {
    const payload = decodeCloudWatchLogs(input);
    if (!payload) return { kind: 'cloudwatch-logs', events, invalid: ['CloudWatch Logs payload cannot be decoded'] };
    // CloudWatch Logs sends one CONTROL_MESSAGE to check the destination is reachable.
    if (payload.messageType !== 'DATA_MESSAGE') return { kind: 'cloudwatch-logs', events, invalid };
    for (const logEvent of payload.logEvents) add(statusFromSmsDeliveryLog(logEvent.message, logEvent.timestamp));
    return { kind: 'cloudwatch-logs', events, invalid };
  }

  if (isObject(input) && 'detail-type' in input) {
    const bridge = validate(EventBridgeSchema, input);
    if (!bridge.success || bridge.output.source !== 'aws.ses') {
      return { kind: 'eventbridge', events, invalid: ['EventBridge event is not from aws.ses'] };
    }
    add(statusFromSesEvent(sesEventOfEventBridgeDetail(bridge.output['detail-type'], bridge.output.detail)));
    return { kind: 'eventbridge', events, invalid };
  }

  return { kind: 'unknown', events, invalid: ['input is neither an SNS, a CloudWatch Logs nor an EventBridge event'] };
}

/** SES and End User Messaging events both reach the Lambda through SNS (and SQS); their shapes tell them apart. */
function statusFromProviderEvent(message: unknown): StatusEvent | { readonly invalid: string } {
  return looksLikeEumEvent(message) ? statusFromEumEvent(message) : statusFromSesEvent(message);
}

/** A body is the event itself (raw delivery), or an SNS notification whose Message is. Undefined: not JSON. */
function providerMessageOf(body: string): unknown {
  const json = parseJson(body);
  const notification = validate(SnsSqsNotificationSchema, json);
  return notification.success ? parseJson(notification.output.Message) : json;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isSqsEvent(input: Record<string, unknown>): boolean {
  const first: unknown = Array.isArray(input.Records) ? input.Records[0] : undefined;
  return isObject(first) && first.eventSource === 'aws:sqs';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
