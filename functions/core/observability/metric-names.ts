import { ConfigurationError } from '../errors';

/**
 * Metric names and namespace shared by the Lambda code (which emits them as EMF)
 * and the CDK stack (which alarms and graphs them).
 */

/**
 * The namespace of a function run without one (locally), and the first part of every namespace the
 * stack gives its functions (`IdempotentNotifier/<stack>/<construct path>`), so two stacks in one account
 * and region never read each other's metrics.
 */
export const METRICS_NAMESPACE = 'IdempotentNotifier';

/** The variable the stack names each function's namespace in: Powertools' own, so its docs apply. */
export const METRICS_NAMESPACE_VARIABLE = 'POWERTOOLS_METRICS_NAMESPACE';

/** What CloudWatch accepts as a namespace: 1-255 of these characters, not starting with `AWS/`. */
const NAMESPACE_PATTERN = /^[A-Za-z0-9.\-_/#: ]{1,255}$/;

/** Why `namespace` cannot be a CloudWatch namespace of ours, or undefined when it can. */
export function metricsNamespaceProblem(namespace: string): string | undefined {
  if (!NAMESPACE_PATTERN.test(namespace)) {
    return `metrics namespace (${JSON.stringify(namespace)}) must be 1-255 letters, digits, spaces or . - _ / # :`;
  }
  if (namespace.startsWith('AWS/')) return `metrics namespace (${namespace}) must not start with AWS/ (reserved for AWS)`;
  return undefined;
}

/**
 * The namespace the function's metrics go to: {@link METRICS_NAMESPACE_VARIABLE} when set, else
 * {@link METRICS_NAMESPACE}.
 * @throws ConfigurationError naming the variable and its value when it is not a namespace CloudWatch accepts.
 */
export function metricsNamespaceFrom(env: Readonly<Record<string, string | undefined>>): string {
  const value = env[METRICS_NAMESPACE_VARIABLE];
  if (value === undefined || value === '') return METRICS_NAMESPACE;
  const problem = metricsNamespaceProblem(value);
  if (problem) throw new ConfigurationError(`${METRICS_NAMESPACE_VARIABLE}: ${problem}`);
  return value;
}

export const METRIC = {
  Sent: 'Sent',
  DuplicateSuppressed: 'DuplicateSuppressed',
  ConcurrentClaimBackoff: 'ConcurrentClaimBackoff',
  StaleClaimTakeover: 'StaleClaimTakeover',
  TransientRetry: 'TransientRetry',
  /** A provider refused a send for its rate (throttling): backpressure, never a failure. */
  ProviderThrottled: 'ProviderThrottled',
  /** A provider refused a send because the daily quota is spent: sending pauses. */
  ProviderQuotaExhausted: 'ProviderQuotaExhausted',
  /** A provider refused a send until an operator acts (sending paused, unverified identity, ...). */
  ProviderConfigurationFault: 'ProviderConfigurationFault',
  /** A provider refused a send with an error it does not document for the call. */
  ProviderErrorUnrecognised: 'ProviderErrorUnrecognised',
  /** The send-rate governor had no slot before the invocation's end: the message was deferred unsent. */
  RateLimitedDeferral: 'RateLimitedDeferral',
  /** A record whose messages were throttled or rate-limited was made invisible for a backoff. */
  RecordBackedOff: 'RecordBackedOff',
  /**
   * A record the sender lists in its partial batch response (a message of it not settled in this invocation, or an
   * error), with or without a backoff: received again, or moved to the DLQ past maxReceiveCount. Its reason is logged.
   */
  RecordRetried: 'RecordRetried',
  /** A ledger request failed while this attempt may hold a claim; the claim was handed back. */
  ClaimReleasedAfterLedgerError: 'ClaimReleasedAfterLedgerError',
  /**
   * The ledger failed on a claim this attempt certainly never sent, and the release failed too: its
   * owner "dies" before any provider call was possible. Its environment keeps it to release later.
   */
  UnsentClaimKept: 'UnsentClaimKept',
  /** A kept unsent claim released (or taken back) by its environment: the next receive sees no ambiguity. */
  UnsentClaimReleased: 'UnsentClaimReleased',
  /**
   * A kept unsent claim's row had moved on before its environment came back: taken over (that takeover counted
   * an ambiguity that never was) or, for a claim whose request never executed, claimed afresh by another attempt.
   */
  UnsentClaimAlreadyTaken: 'UnsentClaimAlreadyTaken',
  /** The ledger failed on the outcome of a send this attempt knows; its environment keeps it to write later. */
  OutcomeKept: 'OutcomeKept',
  /** A kept outcome written by its environment after the ledger came back. */
  OutcomeRecordedLater: 'OutcomeRecordedLater',
  /** A kept write dropped from a full environment memory: its next receive will see an owner that died. */
  KeptLedgerWriteForgotten: 'KeptLedgerWriteForgotten',
  /**
   * A ledger write the ledger refused with an error no retry can fix (a ValidationException, an unknown error):
   * not kept, or dropped from what is kept, with its reason in the log. Its next receive sees an owner that died.
   */
  KeptLedgerWriteDropped: 'KeptLedgerWriteDropped',
  PermanentFailure: 'PermanentFailure',
  /**
   * A message whose lifetime ran out before its send, counted from the event's occurredAt (a code push older than
   * its code, a text past its class's End User Messaging time to live): never sent, FAILED (UNKNOWN if an earlier
   * attempt may have reached the provider) with `LifetimeExpired` as its reason.
   */
  LifetimeExpired: 'LifetimeExpired',
  /**
   * A message still unsettled at its class's bound after its first claim (settle-bound.ts): ended without a call,
   * UNKNOWN if an earlier call may have sent it, FAILED if none can have, with `SettleBoundReached` as its reason.
   * Alarmed: a provider that keeps failing one message, or a bug that keeps a row from settling.
   */
  SettleBoundReached: 'SettleBoundReached',
  /**
   * A message written in its template's default locale because the recipient's `locale` did not lead to a variant
   * (dimension `reason`: `missing`, `ill-formed`, `too-long`, `no-variant`; recipient-locale.ts). It is sent.
   */
  LocaleFallback: 'LocaleFallback',
  /** A message never sent by a limit of its class or a destination rule (dimension `reason`). */
  Suppressed: 'Suppressed',
  /** The limit store failed: the claim was handed back unsent and the record backs off. */
  LimitStoreError: 'LimitStoreError',
  /** A bulk e-mail never sent, or refused by SES, because its contact unsubscribed (also `Suppressed` reason `Unsubscribed`). */
  Unsubscribed: 'Unsubscribed',
  /** A bulk text never sent, or refused or logged by the provider, because the number opted out (also `Suppressed` reason `OptedOut`). */
  OptedOut: 'OptedOut',
  /** A bulk message inside its class's quiet hours in the recipient's time: deferred to the window's end, never sent early. */
  QuietHoursDeferred: 'QuietHoursDeferred',
  /** The consent store failed: the claim was handed back unsent and the record backs off. */
  ConsentStoreError: 'ConsentStoreError',
  /** The provider could not be asked whether a number opted out (SNS CheckIfPhoneNumberIsOptedOut): the text was sent. */
  OptOutCheckFailed: 'OptOutCheckFailed',
  /** A provider's refusal for consent could not be written to the consent store (the message itself is settled). */
  ConsentNotRecorded: 'ConsentNotRecorded',
  AmbiguousOutcome: 'AmbiguousOutcome',
  ResentAfterAmbiguity: 'ResentAfterAmbiguity',
  GaveUpAfterAmbiguity: 'GaveUpAfterAmbiguity',
  SentByEvidence: 'SentByEvidence',
  /**
   * An ambiguous message whose class waited for delivery evidence (a look-up's wait, or keyed evidence's window) and
   * got none: its wait, not evidence, settled it (resent or given up). What is left of the evidence gap, counted.
   */
  SettledByWait: 'SettledByWait',
  /**
   * A message ended `UNKNOWN` because its provider calls failed the same way, without an answer from the
   * provider, on consecutive attempts (see ambiguity-loop.ts): a loop stopped, not a policy's give-up.
   */
  AmbiguityLoopStopped: 'AmbiguityLoopStopped',
  InvalidEvent: 'InvalidEvent',
  /** A field of an event the schema does not know, with the `field` dimension (its name, never its value). */
  UnknownEventField: 'UnknownEventField',
  EventTooOld: 'EventTooOld',
  ClaimLost: 'ClaimLost',
  LedgerError: 'LedgerError',
  DeadLettered: 'DeadLettered',
  StalePendingFound: 'StalePendingFound',
  /**
   * A claim the reclaimer may have to finish could not keep its message: packed, it is larger than a ledger
   * row holds. The message is sent as usual; if this attempt dies, the reclaimer ends it (class policy, or
   * FAILED RequestNotStored) instead of sending it.
   */
  RequestTooLargeToStore: 'RequestTooLargeToStore',
  ReclaimedSent: 'ReclaimedSent',
  ReclaimedResent: 'ReclaimedResent',
  ReclaimedGaveUp: 'ReclaimedGaveUp',
  /** Status Lambda (service `status`): a delivery-status event written to its row. */
  DeliveryStatusRecorded: 'DeliveryStatusRecorded',
  /** A duplicate or out-of-order event: the row already holds this status or a later one. */
  DeliveryStatusSuperseded: 'DeliveryStatusSuperseded',
  /** An event with no ledger row (not ours, no key, or past retention). */
  DeliveryStatusUnmatched: 'DeliveryStatusUnmatched',
  /** An input or record that is not a delivery-status event we understand. */
  DeliveryStatusInvalid: 'DeliveryStatusInvalid',
  /** An End User Messaging event without a boolean `isFinal`: recorded as intermediate, so it can never settle a text. */
  DeliveryStatusFinalityUnstated: 'DeliveryStatusFinalityUnstated',
  /** Status Lambda: an SES `Bounce` recorded on one of our rows (the provider had accepted the e-mail). */
  LateBounce: 'LateBounce',
  /** Status Lambda: an SES `Complaint` recorded on one of our rows (the recipient marked the e-mail as spam). */
  LateComplaint: 'LateComplaint',
  /** Outcome publisher (service `outcomes`): an outcome event the bus took. */
  OutcomePublished: 'OutcomePublished',
  /** An outcome event the bus did not take on one try (PutEvents' failed entry, or a failed call): sent again. */
  OutcomeEntryFailed: 'OutcomeEntryFailed',
  /** A stream record handed back to the event source mapping (its events, or a later record's, not yet all on the bus). */
  OutcomeRecordRetried: 'OutcomeRecordRetried',
  /** A stream record of a message's row that is not a valid ledger row: handed back, and parked by the mapping. */
  OutcomeRecordInvalid: 'OutcomeRecordInvalid',
  /** Fallback trigger (service `fallback`): a primary's write that asks the sender for its fallback (now, or at the end of its class's window). */
  FallbackRequested: 'FallbackRequested',
  /** Sender: a fallback sent (by this attempt's own provider call), with `reason` the trigger: `certainly-undelivered` or `no-evidence`. */
  FallbackSent: 'FallbackSent',
  /** Sender: a fallback sent by its class's exception (no delivery evidence within the window), apart from the certain ones. */
  FallbackWithoutEvidence: 'FallbackWithoutEvidence',
  /** Sender: a fallback's request that found its primary delivered, possibly delivered, pending, or kept from fallback: nothing sent. */
  FallbackNotDue: 'FallbackNotDue',
  /** Sender: a fallback's request whose primary row is gone (retention) or keeps no readable plan: nothing sent, logged. */
  FallbackUnsendable: 'FallbackUnsendable',
  /** Fallback trigger: the provider says a primary was delivered after its fallback had gone out (a message on two channels). Alarmed. */
  FallbackAfterDelivered: 'FallbackAfterDelivered',
  /** Fallback trigger: a stream record handed back to the mapping (its request not on the queue yet). */
  FallbackRecordRetried: 'FallbackRecordRetried',
} as const;
export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/**
 * Values of the `service` dimension: each function's Powertools `serviceName`. Every metric is
 * also emitted with this dimension alone, so alarms use it alone.
 */
export const SERVICE = {
  sender: 'sender',
  reclaimer: 'reclaimer',
  status: 'status',
  outcomes: 'outcomes',
  fallback: 'fallback',
} as const;
export type ServiceName = (typeof SERVICE)[keyof typeof SERVICE];

/** Dimension names used with the metrics above. */
export const DIMENSION = {
  service: 'service',
  channel: 'channel',
  messageClass: 'messageClass',
  /** Why a message was suppressed (with `Suppressed`), or written in its template's default locale (with `LocaleFallback`). */
  reason: 'reason',
  /** Which unknown event field (with `UnknownEventField` only): its name, as `unknownEventFields` reports it. */
  field: 'field',
} as const;
