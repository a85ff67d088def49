/**
 * Delivery-status evidence: SES events and SNS SMS delivery logs for the status function. Built by lib/notifier-
 * status.ts and lib/sms-delivery-status.ts.
 */
export interface DeliveryStatusEvidenceProps {
  /**
   * Add an event destination to each configuration set that publishes send, delivery, bounce, complaint, reject,
   * delivery-delay, rendering-failure and subscription events to the stack's SES events topic, whose queue the status
   * Lambda consumes in batches (lib/ses-event-queue.ts). With `sesConfigurationSetName` the destination is added to that
   * existing set by name. Set false when the sets' destinations are managed elsewhere, and publish those event types
   * to the topic (`deliveryStatus.sesEvents.topic`) yourself: the topic and queue are created either way.
   * @default true
   */
  readonly sesEventDestination?: boolean;
  /**
   * Also publish SES events to the default EventBridge bus, where a rule passes them to the status Lambda (the route
   * before the queue), for a deployment whose other consumers read SES events there. EventBridge delivers SES events
   * best effort; the queue is the stack's evidence path either way (the status handler ignores a duplicate).
   * @default false
   */
  readonly sesEventBridgeRule?: boolean;
  /**
   * Send the account's SNS SMS delivery-status logs (`sns/<region>/<account>/DirectPublishToPhoneNumber`
   * and `.../Failure`) to the status Lambda through subscription filters. The log groups are created if
   * missing and never deleted by this stack. SNS only writes them once delivery-status logging is on for
   * the account (see `smsDeliveryStatusSuccessSamplingPercent`). Needs `smsEnabled`.
   * @default false
   */
  readonly smsDeliveryStatusLogs?: boolean;
  /**
   * Turn on the account's SMS delivery-status logging with this success sampling rate (0-100; failures
   * are always logged), through a custom resource calling `SNS.SetSMSAttributes` with a logging role this
   * stack creates (and retains). Account and region wide: leave unset when another stack or a person
   * manages it. Needs `smsDeliveryStatusLogs`.
   * @default - not managed by this stack
   */
  readonly smsDeliveryStatusSuccessSamplingPercent?: number;
  /**
   * Entry file of the status handler (exports `handler`).
   * @default - `functions/status/handler.ts` of this repository
   */
  readonly statusEntry?: string;
}
