/** One message the check sends and what the ledger must end up saying about it. */
export interface ExpectedMessage {
  readonly eventId: string;
  readonly recipientId: string;
  readonly channel: 'email' | 'sms';
  /** What this message is meant to prove, for the report. */
  readonly proves: string;
  /** Delivery statuses the row may still show on its way (not a failure, not done). */
  readonly intermediateStatuses: readonly string[];
  /** The delivery status the row must end with. */
  readonly finalStatus: string;
  /**
   * The row must have been taken over (claim version above 1): sent by the reclaimer, not by its first claim.
   * @default false
   */
  readonly takenOver?: boolean;
}
