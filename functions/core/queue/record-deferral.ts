/** Makes a received queue record invisible for a while, so it comes back later (backpressure). */
export interface RecordDeferral {
  /** Sets the record's visibility timeout; it is redelivered after `seconds`. */
  defer(receiptHandle: string, seconds: number): Promise<void>;
}
