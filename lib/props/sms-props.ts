/**
 * SMS through SNS: whether, to which countries, from which sender, and what the account may spend. Validated by
 * `destinationViolations` (lib/destination-options.ts) and `smsSpendViolations` (lib/sms-spend-limit.ts).
 */
export interface SmsProps {
  /**
   * Allow SMS: `sns:Publish` to phone numbers (never to topics). Needs `smsCountries` and
   * `smsMonthlySpendLimitUsd`: synth fails without them.
   * @default - true when `smsCountries` are given, else false
   */
  readonly smsEnabled?: boolean;
  /**
   * The countries an SMS may go to, ISO 3166-1 alpha-2 (`['US', 'CA']`). A number of any other country, or of
   * none (international networks such as +882), is never sent: its message ends `SUPPRESSED` `CountryNotAllowed`.
   * IAM cannot narrow `sns:Publish` to countries; this list and the message classes' limits are what stand
   * between a producer and the SMS bill. Synth embeds what telling these countries' numbers apart takes
   * (from libphonenumber-js's metadata) in the sender and the reclaimer.
   * @default - none (SMS off)
   */
  readonly smsCountries?: readonly string[];
  /**
   * Alphanumeric sender ID for SMS (only honoured in some countries).
   * @default - none
   */
  readonly smsSenderId?: string;
  /**
   * Origination number (E.164) for SMS.
   * @default - none: SNS picks one
   */
  readonly smsOriginationNumber?: string;
  /**
   * Account-level SNS SMS `MonthlySpendLimit` in USD, set by a custom resource (`SNS.SetSMSAttributes`) and
   * watched by the `SmsMonthToDateSpend` alarm. Required with `smsEnabled` (an SMS sender must say what it may
   * spend; the account's limit outlives the stack), refused without it. It is an account and region wide setting:
   * one stack per account and region should send SMS. It cannot exceed the account's SMS spend quota (US$1
   * until raised through a support case).
   * @default - none: required when `smsEnabled` is true
   */
  readonly smsMonthlySpendLimitUsd?: number;
  /**
   * Alarm when `AWS/SNS SMSMonthToDateSpentUSD` exceeds this many USD (above 0, at most the limit).
   * @default - 80% of `smsMonthlySpendLimitUsd`
   */
  readonly smsSpendAlarmThresholdUsd?: number;
}
