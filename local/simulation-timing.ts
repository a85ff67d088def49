/** Timeouts of one simulated deployment; the sender's timing invariants hold between them. */
export interface SimulationTiming {
  /** Lambda kills an invocation after this. */
  readonly functionTimeoutMs: number;
  /** A claim older than this may be taken over; must exceed the function timeout. */
  readonly claimTimeoutMs: number;
  /** One provider call at most; must be below the function timeout. */
  readonly sendTimeoutMs: number;
  /** Queue visibility timeout: a record not deleted comes back after this. */
  readonly visibilityTimeoutMs: number;
  /** Ledger row lifetime. */
  readonly retentionMs: number;
}

/**
 * AWS's timeouts scaled down (about 10-30x) so that a redelivery after a crash takes seconds, not
 * minutes. Claim > function timeout > send timeout, as the sender requires; the visibility
 * timeout exceeds the claim timeout, so a redelivery after a crash finds the dead claim stale.
 * (AWS recommends visibility >= 6 x function timeout for the poller; safety does not rely on it.)
 */
export const SCALED_TIMING: SimulationTiming = {
  // The sender starts a delivery only with send timeout + 3 s left (its ledger-write allowance,
  // two ledger request timeouts), so the function timeout leaves 2.5 s of each invocation for
  // starting deliveries.
  functionTimeoutMs: 6_000,
  claimTimeoutMs: 6_500,
  sendTimeoutMs: 500,
  visibilityTimeoutMs: 7_000,
  retentionMs: 30 * 86_400_000,
};
