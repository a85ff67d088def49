/**
 * SES's email-sending events as EventBridge names them (`detail-type`), each with the event type SES writes in the
 * event itself (`eventType`). The EventBridge event reference lists the detail-types ("Amazon Simple Email Service
 * events": https://docs.aws.amazon.com/eventbridge/latest/ref/events-ref-ses.html); the types are SES's event
 * publishing ones, "Rendering Failure" written with its space as SES writes it.
 */
export const SES_DETAIL_TYPE_EVENT_TYPES: Readonly<Record<string, string>> = {
  'Email Sent': 'Send',
  'Email Delivered': 'Delivery',
  'Email Bounced': 'Bounce',
  'Email Complaint Received': 'Complaint',
  'Email Rejected': 'Reject',
  'Email Delivery Delayed': 'DeliveryDelay',
  'Email Rendering Failed': 'Rendering Failure',
  'Email Subscribed': 'Subscription',
  'Email Opened': 'Open',
  'Email Clicked': 'Click',
};

/**
 * The SES event of an EventBridge event's `detail`, with its `eventType`: its own when it carries one, else the one
 * its `detail-type` names. No source we found shows whether SES repeats `eventType` in `detail` on this path, so the
 * event type never depends on it. A detail that is no object, or a detail-type of no email-sending event, is returned
 * as it is (the SES event schema then refuses it with its reason).
 */
export function sesEventOfEventBridgeDetail(detailType: string, detail: unknown): unknown {
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail) || 'eventType' in detail) return detail;
  const eventType = SES_DETAIL_TYPE_EVENT_TYPES[detailType];
  return eventType === undefined ? detail : { ...detail, eventType };
}
