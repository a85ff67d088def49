/** A configuration value or combination that makes the service unsafe to run. */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
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
  | 'OccurredInFuture';

/** Thrown when a message could not reach a terminal state in this attempt; SQS redelivers it. */
export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
}
