import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { idempotencyKey } from '../../functions/core/event/idempotency-key';
import type { Claim, LedgerRow } from '../../functions/core/ledger/ledger-record';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { ClaimResult, SendLedger, UnconfirmedClaim, Release, TakeoverFields, TerminalWrite } from '../../functions/core/ledger/send-ledger';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { SenderHarness, failedIds } from '../support/sender-harness';
import { sqsRecord } from '../support/sqs-event';

const db = useTestLedger();

class LedgerUnavailable extends Error {
  override readonly name = 'ProvisionedThroughputExceededException';
}

/** The test ledger, where `complete` always fails and `release` fails its first `releaseFailures` calls. */
class FailingOutcomeWrites implements SendLedger {
  releases = 0;
  constructor(
    private readonly inner: SendLedger,
    private readonly releaseFailures: number,
  ) {}
  claim(row: LedgerRow, nowMs: number): Promise<ClaimResult> {
    return this.inner.claim(row, nowMs);
  }
  takeOver(key: string, fields: TakeoverFields): Promise<boolean> {
    return this.inner.takeOver(key, fields);
  }
  async complete(_claim: Claim, _outcome: TerminalWrite, _nowMs: number, _expiresAt: number): Promise<boolean> {
    throw new LedgerUnavailable('complete failed');
  }
  async release(claim: Claim, release: Release, nowMs: number): Promise<boolean> {
    this.releases += 1;
    if (this.releases <= this.releaseFailures) throw new LedgerUnavailable('release failed');
    return this.inner.release(claim, release, nowMs);
  }
  releaseUnconfirmed(attempt: UnconfirmedClaim, release: Release, nowMs: number): Promise<boolean> {
    return this.inner.releaseUnconfirmed(attempt, release, nowMs);
  }
  get(key: string): Promise<LedgerRow | undefined> {
    return this.inner.get(key);
  }
}

/** Every outcome or release write is tried this many times before the attempt gives up (deliver-message). */
const WRITE_ROUNDS = 3;

const answering = (outcome: DeliveryOutcome) => (): DeliveryProvider => ({ send: async () => outcome });

const CASES = [
  {
    name: 'accepted by the provider',
    provider: answering({ kind: 'sent', providerMessageId: 'sns-1' }),
    releaseFailures: 0,
    released: false,
  },
  {
    name: 'answer lost (ambiguous)',
    provider: answering({ kind: 'ambiguous', reason: 'TimeoutError' }),
    releaseFailures: 0,
    released: false,
  },
  {
    name: 'rejected permanently',
    provider: answering({ kind: 'permanent', reason: 'InvalidParameterException' }),
    releaseFailures: 0,
    released: true,
  },
  {
    name: 'refused for now (transient)',
    provider: answering({ kind: 'transient', cause: 'throttled', reason: 'ThrottlingException' }),
    // Its own release fails every round; the one after the error gets through.
    releaseFailures: WRITE_ROUNDS,
    released: true,
  },
] as const;

describe('a ledger error after the provider call', () => {
  it.each(CASES)('$name: the claim is handed back only if the provider certainly did not send', async ({ name, provider, releaseFailures, released }) => {
    const eventId = `evt-ledger-error-after-${name.split(' ')[0]}`;
    const key = idempotencyKey({ eventId, recipientId: 'user-9', channel: 'sms', templateId: 'login-code' });
    // The outcome write (marketing: SENT, UNKNOWN or FAILED) fails every round.
    const ledger = new FailingOutcomeWrites(db.ledger, releaseFailures);
    const harness = new SenderHarness({ ledger, wrapProvider: provider });
    const record = sqsRecord(JSON.stringify(loginCodeEvent({ eventId, messageClass: 'marketing' })));

    expect(failedIds(await harness.invoke(record))).toEqual([record.messageId]);

    const row = await db.ledger.get(key);
    expect(row?.state).toBe('PENDING');
    if (released) {
      // Certainly not sent: the next delivery may take it over at once, as a plain retry.
      expect(row).toMatchObject({ lastRelease: 'transient', leaseExpiresAt: harness.clock.now(), failureReason: 'LedgerError: ProvisionedThroughputExceededException' });
      expect(harness.metrics.get(METRIC.ClaimReleasedAfterLedgerError)).toBe(1);
    } else {
      // It may have gone out: the claim stays until its lease ends and the next delivery applies the class policy.
      expect(row?.lastRelease).toBeUndefined();
      expect(row!.leaseExpiresAt).toBeGreaterThan(harness.clock.now());
      expect(harness.metrics.get(METRIC.ClaimReleasedAfterLedgerError)).toBe(0);
    }
  });
});
