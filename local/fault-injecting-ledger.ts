import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import type { Claim, LedgerRow } from '../functions/core/ledger/ledger-record';
import type { ClaimResult, SendLedger, UnconfirmedClaim, Release, TakeoverFields, TerminalWrite } from '../functions/core/ledger/send-ledger';
import type { ExecutionEnvironment } from './execution-environment';
import type { FaultPlan } from './fault-plan';

/** The error the SDK throws once its own retries of a throttled request are used up. */
export function throttlingError(): Error {
  return new ProvisionedThroughputExceededException({
    message: 'The level of configured provisioned throughput for the table was exceeded (injected)',
    $metadata: { httpStatusCode: 400 },
  });
}

/**
 * A {@link SendLedger} wrapper that injects the ledger-side faults: crashes around the claim and
 * after the outcome write, and throttled requests (which have no effect, as on DynamoDB).
 */
export class FaultInjectingLedger implements SendLedger {
  constructor(
    private readonly inner: SendLedger,
    private readonly plan: FaultPlan,
    private readonly env: ExecutionEnvironment,
  ) {}

  async claim(row: LedgerRow, nowMs: number): Promise<ClaimResult> {
    this.throttle(row.key, 'claim');
    if (this.plan.roll('crashBeforeClaim', row.key)) return this.env.crash();
    const result = await this.inner.claim(row, nowMs);
    if (result.claimed && this.plan.roll('crashAfterClaim', row.key)) return this.env.crash();
    return result;
  }

  async takeOver(key: string, fields: TakeoverFields): Promise<boolean> {
    this.throttle(key, 'takeOver');
    const taken = await this.inner.takeOver(key, fields);
    if (taken && this.plan.roll('crashAfterClaim', key)) return this.env.crash();
    return taken;
  }

  async complete(claim: Claim, outcome: TerminalWrite, nowMs: number, expiresAt: number): Promise<boolean> {
    if (this.plan.roll('dynamoThrottle', claim.key, 'complete')) {
      // The provider accepted it, but the row stays PENDING: the next attempt sees an unknown outcome.
      if (outcome.state === 'SENT') this.plan.noteUnrecordedReach(claim.key);
      throw throttlingError();
    }
    const done = await this.inner.complete(claim, outcome, nowMs, expiresAt);
    if (done && this.plan.roll('crashAfterOutcome', claim.key)) return this.env.crash();
    return done;
  }

  async release(claim: Claim, release: Release, nowMs: number): Promise<boolean> {
    this.throttle(claim.key, 'release');
    return this.inner.release(claim, release, nowMs);
  }

  async releaseUnconfirmed(attempt: UnconfirmedClaim, release: Release, nowMs: number): Promise<boolean> {
    this.throttle(attempt.kind === 'claim' ? attempt.row.key : attempt.key, 'release');
    return this.inner.releaseUnconfirmed(attempt, release, nowMs);
  }

  async get(key: string): Promise<LedgerRow | undefined> {
    this.throttle(key, 'get');
    return this.inner.get(key);
  }

  private throttle(key: string, site: string): void {
    if (this.plan.roll('dynamoThrottle', key, site)) throw throttlingError();
  }
}
