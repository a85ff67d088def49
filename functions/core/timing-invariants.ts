/**
 * The timing rules that keep the ledger safe, checked in one place by both the CDK
 * stack (at synth) and the Lambda (at cold start). Each violation names both values.
 */
export interface TimingSettings {
  readonly functionTimeoutSeconds: number;
  readonly claimTimeoutSeconds: number;
  readonly sendTimeoutMs: number;
  readonly ledgerRetentionSeconds: number;
  /** Only known at synth time. */
  readonly queue?: {
    readonly visibilityTimeoutSeconds: number;
    readonly retentionSeconds: number;
    readonly deadLetterRetentionSeconds: number;
    readonly replayWindowSeconds: number;
  };
}

export function timingViolations(t: TimingSettings): string[] {
  const violations: string[] = [];
  if (!(t.claimTimeoutSeconds > t.functionTimeoutSeconds)) {
    violations.push(
      `claim timeout (${t.claimTimeoutSeconds}s) must exceed the sender function timeout (${t.functionTimeoutSeconds}s), ` +
        'or a live worker\'s claim looks stale and its message is sent twice',
    );
  }
  if (!(t.sendTimeoutMs < t.functionTimeoutSeconds * 1000)) {
    violations.push(
      `send timeout (${t.sendTimeoutMs}ms) must be below the sender function timeout (${t.functionTimeoutSeconds * 1000}ms), ` +
        'or Lambda kills the worker before it can record the outcome',
    );
  }
  if (t.queue) {
    const q = t.queue;
    if (q.visibilityTimeoutSeconds < 6 * t.functionTimeoutSeconds) {
      violations.push(
        `queue visibility timeout (${q.visibilityTimeoutSeconds}s) must be at least 6 x the sender function timeout ` +
          `(6 x ${t.functionTimeoutSeconds}s = ${6 * t.functionTimeoutSeconds}s), AWS's guidance for SQS event sources`,
      );
    }
    const horizon = q.retentionSeconds + q.deadLetterRetentionSeconds + q.replayWindowSeconds;
    if (t.ledgerRetentionSeconds < horizon) {
      violations.push(
        `ledger retention (${t.ledgerRetentionSeconds}s) must cover queue retention (${q.retentionSeconds}s) + ` +
          `DLQ retention (${q.deadLetterRetentionSeconds}s) + replay window (${q.replayWindowSeconds}s) = ${horizon}s, ` +
          'or a redelivered message finds its row gone and is sent again',
      );
    }
  }
  return violations;
}
