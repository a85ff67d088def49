/**
 * Delivery-status evidence: SES events and SNS SMS delivery logs for the status function. Built by lib/notifier-
 * status.ts and lib/sms-delivery-status.ts.
 */
export interface DeliveryStatusEvidenceProps {
  /**
   * Add an event destination to the configuration set that publishes send, delivery, bounce,
   * complaint, reject, delivery-delay and rendering-failure events to the default EventBridge bus,
   * where a rule passes this configuration set's events to the status Lambda. With
   * `sesConfigurationSetName` the destination is added to that existing set by name. Set false when
   * the set's destinations are managed elsewhere, and add an EventBridge destination for those event
   * types yourself: the rule is created either way.
   * @default true
   */
  readonly sesEventDestination?: boolean;
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
