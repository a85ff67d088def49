/**
 * SMS through SNS or AWS End User Messaging SMS: whether, to which countries, through which service, from which
 * sender, and what the account may spend. Validated by `destinationViolations` (lib/destination-options.ts),
 * `smsSpendViolations` (lib/sms-spend-limit.ts) and `endUserMessagingViolations` (lib/end-user-messaging-sms.ts).
 */
export interface SmsProps {
  /**
   * Which service sends SMS: SNS `Publish`, or End User Messaging SMS `SendTextMessage` through a configuration set
   * whose events carry each text's idempotency key and claim version back to the ledger, so that a text whose send
   * timed out is settled by evidence instead of resent (otp), waited for in vain (transactional) or given up
   * (marketing). Context key `notifier:smsProvider`.
   * @default 'sns'
   */
  readonly smsProvider?: 'sns' | 'end-user-messaging';
  /**
   * With `end-user-messaging`: the ARNs of the origination identities (phone numbers, sender IDs or pools,
   * `arn:aws:sms-voice:<region>:<account>:phone-number/<id>`, `.../sender-id/<id>/<country>`, `.../pool/<id>`) the
   * functions may send from; the first is the one they send from. Required with that provider: the grant is on
   * these and the stack's configuration set only.
   * @default - none: required with `smsProvider: 'end-user-messaging'`
   */
  readonly smsOriginationIdentities?: readonly string[];
  /**
   * With `end-user-messaging`: the most one message part may cost, in US dollars (`MaxPrice`, e.g. `'0.10'`); a
   * text that would cost more is refused (FAILED `OverMaxPrice`): a premium-rate destination never goes out.
   * @default - none
   */
  readonly smsMaxPriceUsd?: string;
  /**
   * With `end-user-messaging`: a protect configuration (its country rules, on AWS's side) applied to every send,
   * beside this stack's own `smsCountries`.
   * @default - none: the account's default protect configuration, if any
   */
  readonly smsProtectConfigurationId?: string;
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
   * Account-level SMS monthly spend limit in USD, set by a custom resource (SNS: `SetSMSAttributes`
   * `MonthlySpendLimit`; End User Messaging: `SetTextMessageSpendLimitOverride`, whole dollars) and watched by the
   * `SmsMonthToDateSpend` alarm. Required with `smsEnabled` (an SMS sender must say what it may
   * spend; the account's limit outlives the stack), refused without it. It is an account and region wide setting:
   * one stack per account and region should send SMS. It cannot exceed the account's SMS spend quota (US$1
   * until raised through a support case).
   * @default - none: required when `smsEnabled` is true
   */
  readonly smsMonthlySpendLimitUsd?: number;
  /**
   * Alarm when the month's SMS spend (`AWS/SNS SMSMonthToDateSpentUSD`, or `AWS/SMSVoice TextMessageMonthlySpend`
   * with End User Messaging) exceeds this many USD (above 0, at most the limit).
   * @default - 80% of `smsMonthlySpendLimitUsd`
   */
  readonly smsSpendAlarmThresholdUsd?: number;
}
