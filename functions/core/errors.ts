/**
 * A configuration value or combination that makes the service unsafe to run. Its message names the variables
 * to change; it carries no stack frames, since Lambda logs a failed cold start's stack and a setting is not a
 * place in the code.
 */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
  constructor(message: string) {
    super(message);
    this.stack = `${this.name}: ${message}`;
  }
}

/** An SQS record whose body can never become a valid notification event. */
export class InvalidEventError extends Error {
  override readonly name = 'InvalidEventError';
  constructor(
    readonly reason: InvalidEventReason,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

export type InvalidEventReason =
  | 'BodyTooLarge'
  | 'NotJson'
  | 'SchemaViolation'
  | 'UnknownMessageClass'
  | 'EventTooOld'
  | 'OccurredInFuture'
  /** A field the schema does not know, when the stack refuses them (`REFUSE_UNKNOWN_EVENT_FIELDS`). */
  | 'UnknownField'
  /** The ledger refused a message's claim for what it holds (an item it cannot store): no receive can succeed. */
  | 'LedgerRefusedClaim';

/**
 * How a record that failed for its providers' pace should come back: `throttle` after an
 * exponential backoff in its receive count; `pause` after the longest step (a spent daily quota);
 * `{ until }` at that instant (epoch ms; the end of quiet hours), never before it.
 */
export type RecordBackoff = 'throttle' | 'pause' | { readonly until: number };

/** Thrown when a message could not reach a terminal state in this attempt; SQS redelivers it. */
export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
  constructor(
    message: string,
    /** Set when every unsettled message waits on the providers' pace. @default none: the queue's visibility timeout */
    readonly backoff?: RecordBackoff,
  ) {
    super(message);
  }
}
