/** Names of the alarms (keys of `IdempotentNotifier.alarms`); each has a runbook entry: {@link runbookLink}. */
export const ALARM = {
  duplicateSuppressedRate: 'DuplicateSuppressedRate',
  resentAfterAmbiguity: 'ResentAfterAmbiguity',
  gaveUpAfterAmbiguity: 'GaveUpAfterAmbiguity',
  ambiguityLoopStopped: 'AmbiguityLoopStopped',
  settleBoundReached: 'SettleBoundReached',
  keptLedgerWriteDropped: 'KeptLedgerWriteDropped',
  permanentFailureRate: 'PermanentFailureRate',
  suppressedRate: 'SuppressedRate',
  limitStoreError: 'LimitStoreError',
  invalidEvent: 'InvalidEvent',
  deadLetterQueueNotEmpty: 'DeadLetterQueueNotEmpty',
  oldestMessageAge: 'OldestMessageAge',
  stalePendingFound: 'StalePendingFound',
  senderErrors: 'SenderErrors',
  senderThrottles: 'SenderThrottles',
  reclaimerErrors: 'ReclaimerErrors',
  reclaimerThrottles: 'ReclaimerThrottles',
  statusErrors: 'StatusErrors',
  statusThrottles: 'StatusThrottles',
  statusFailedEvents: 'StatusFailedEvents',
  sesEventRuleDeadLetters: 'SesEventRuleDeadLetters',
  sesEventDeadLetters: 'SesEventDeadLetters',
  smsEventDeadLetters: 'SmsEventDeadLetters',
  deliveryStatusInvalid: 'DeliveryStatusInvalid',
  deliveryStatusFinalityUnstated: 'DeliveryStatusFinalityUnstated',
  smsMonthToDateSpend: 'SmsMonthToDateSpend',
  providerConfigurationFault: 'ProviderConfigurationFault',
  providerQuotaExhausted: 'ProviderQuotaExhausted',
  providerThrottledRate: 'ProviderThrottledRate',
  rateLimitedDeferralSustained: 'RateLimitedDeferralSustained',
  providerErrorUnrecognised: 'ProviderErrorUnrecognised',
  backlogAgeNearLimit: 'BacklogAgeNearLimit',
  sesBounceRate: 'SesBounceRate',
  sesComplaintRate: 'SesComplaintRate',
  sesBulkBounceRate: 'SesBulkBounceRate',
  sesBulkComplaintRate: 'SesBulkComplaintRate',
  sesBulkTenantRefusing: 'SesBulkTenantRefusing',
  settledByWait: 'SettledByWait',
  lateBounces: 'LateBounces',
  lateComplaints: 'LateComplaints',
  ledgerErrors: 'LedgerErrors',
  ledgerThrottled: 'LedgerThrottled',
  smsSuccessRate: 'SmsSuccessRate',
  unroutedEvents: 'UnroutedEvents',
  unsubscribedRate: 'UnsubscribedRate',
  optedOutRate: 'OptedOutRate',
  quietHoursDeferredRate: 'QuietHoursDeferredRate',
  outcomeIteratorAge: 'OutcomeIteratorAge',
  outcomePublisherErrors: 'OutcomePublisherErrors',
  outcomeEntriesFailed: 'OutcomeEntriesFailed',
  outcomeFailedBatches: 'OutcomeFailedBatches',
  fallbackAfterDelivered: 'FallbackAfterDelivered',
  fallbackTriggerErrors: 'FallbackTriggerErrors',
  fallbackFailedBatches: 'FallbackFailedBatches',
} as const;

/** Name of one of the notifier's alarms. */
export type AlarmName = (typeof ALARM)[keyof typeof ALARM];

/** The page of this repository that holds the alarm runbook, one heading per alarm. */
export const RUNBOOK_PAGE = 'docs/operations.md';

/**
 * Where an alarm's runbook entry is, as its description names it: the page and the anchor GitHub gives the
 * alarm's heading (an alarm name is letters only, so its anchor is the name in lower case).
 * `test/docs/links.test.ts` checks that every one of these anchors exists.
 */
export function runbookLink(name: AlarmName): string {
  return `${RUNBOOK_PAGE}#${name.toLowerCase()}`;
}
