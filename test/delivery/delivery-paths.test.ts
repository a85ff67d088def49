import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import type { DeliveryEvidence } from '../../functions/core/policy/message-class';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { InMemoryDeadLetters } from '../../functions/core/queue/dead-letter-sink';
import { RetryLaterError } from '../../functions/core/errors';
import { newClaimRow } from '../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { silentLog } from '../../functions/core/observability/log-port';
import { buildMessageClassRegistry, type MessageClass } from '../../functions/core/policy/message-class';
import { METRIC } from '../../functions/core/observability/metric-names';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { SendLedger, UnconfirmedClaim, Release } from '../../functions/core/ledger/send-ledger';
import { SendRateGovernor } from '../../functions/core/policy/send-rate-governor';
import { deliver, FRESH_CLAIM, type DeliveryContext } from '../../functions/delivery/deliver-message';
import { planMessages, type MessagePlan } from '../../functions/delivery/message-plan';
import { processRecord } from '../../functions/sender/process-record';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS, RETENTION_MS } from '../support/sender-harness';

const db = useTestLedger();
afterEach(() => {
  vi.restoreAllMocks();
});

const TIMING = { claimTimeoutMs: CLAIM_TIMEOUT_MS, retentionMs: RETENTION_MS };
const CLASSES = buildMessageClassRegistry(
  JSON.stringify([{ name: 'wait-then-give-up', onAmbiguous: 'lookup', lookupFallback: 'give-up', evidenceWaitSeconds: 300 }]),
);
const TEMPLATES = repositoryTemplates();

/** A provider that answers from a script, one outcome per call, and may be asked for evidence. */
class ScriptedProvider implements DeliveryProvider {
  calls = 0;
  readonly lookup?: (key: string) => Promise<DeliveryEvidence>;
  constructor(
    private readonly outcomes: readonly DeliveryOutcome[],
    evidence?: DeliveryEvidence,
  ) {
    if (evidence) this.lookup = async () => evidence;
  }
  async send(): Promise<DeliveryOutcome> {
    this.calls += 1;
    const outcome = this.outcomes[this.calls - 1];
    if (!outcome) throw new Error(`no outcome scripted for call ${this.calls}`);
    return outcome;
  }
}

let events = 0;
/** The one SMS message of a fresh login-code event of `messageClass`. */
function plan(messageClass: string): MessagePlan {
  events += 1;
  const event = loginCodeEvent({ eventId: `evt-paths-${events}`, messageClass });
  const [only] = planMessages(event, CLASSES.get(messageClass) as MessageClass, TEMPLATES);
  return only!;
}

function context(provider: DeliveryProvider, clock: ControlledClock, overrides: Partial<DeliveryContext> = {}) {
  const metrics = new InMemoryMetrics();
  const ctx: DeliveryContext = {
    ledger: db.ledger,
    providers: { email: provider, sms: provider, push: provider },
    metrics,
    log: silentLog,
    clock: clock.now,
    newOwnerToken: randomUUID,
    timing: TIMING,
    sendTimeoutMs: 2_000,
    ...overrides,
  };
  return { ctx, metrics };
}

/** Writes a claim for `message` by an owner that then died (no release): its lease ends at `at` + claim timeout. */
async function deadClaim(message: MessagePlan, at: number): Promise<LedgerRow> {
  const { identity, key, messageClass, occurredAt } = message;
  const row = newClaimRow({ subject: { key, ...identity, messageClass: messageClass.name, occurredAt }, ownerToken: 'dead-owner', nowMs: at, timing: TIMING });
  expect(await db.ledger.claim(row, at)).toEqual({ claimed: true });
  return row;
}

const row = async (key: string) => db.ledger.get(key);
const sent: DeliveryOutcome = { kind: 'sent', providerMessageId: 'sns-1' };
const hangUp: DeliveryOutcome = { kind: 'ambiguous', reason: 'TimeoutError: socket hang up' };

describe('what a delivery that cannot send now writes on the row', () => {
  it('out of time before the call: released as transient, nothing sent', async () => {
    const message = plan('otp');
    const provider = new ScriptedProvider([sent]);
    // Time stands still: 1 ms past the latest start, however slow the machine between two reads of the clock.
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now);
    const { ctx } = context(provider, new ControlledClock(), { latestSendStartMs: () => now - 1 });
    expect(await deliver(message, FRESH_CLAIM, ctx)).toEqual({ settled: false, why: 'out-of-time' });
    expect(provider.calls).toBe(0);
    expect(await row(message.key)).toMatchObject({
      state: 'PENDING',
      lastRelease: 'transient',
      failureReason: 'OutOfTime: too little of the invocation left to send and record',
    });
  });

  it('at exactly the latest start, the call is still made', async () => {
    const message = plan('otp');
    const provider = new ScriptedProvider([sent]);
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now);
    const { ctx } = context(provider, new ControlledClock(), { latestSendStartMs: () => now });
    expect(await deliver(message, FRESH_CLAIM, ctx)).toMatchObject({ settled: true, state: 'SENT' });
    expect(provider.calls).toBe(1);
  });

  it('no send slot before the invocation ends: released as transient, counted, nothing sent', async () => {
    const message = plan('otp');
    const provider = new ScriptedProvider([sent]);
    const governor = new SendRateGovernor({ sms: 1 });
    expect(await governor.acquire('sms', Date.now() + 10_000)).toBe(true); // the next slot is a second away
    const { ctx, metrics } = context(provider, new ControlledClock(), { governor, latestSendStartMs: () => Date.now() + 100 });
    expect(await deliver(message, FRESH_CLAIM, ctx)).toEqual({ settled: false, why: 'rate-limited' });
    expect(provider.calls).toBe(0);
    expect(metrics.get(METRIC.RateLimitedDeferral)).toBe(1);
    expect(await row(message.key)).toMatchObject({ lastRelease: 'transient', failureReason: 'RateLimited: no send slot before the invocation ends' });
  });
});

describe('an earlier attempt that may have sent (its owner died mid-attempt)', () => {
  it('give-up class: UNKNOWN, saying why', async () => {
    const message = plan('marketing');
    const clock = new ControlledClock();
    await deadClaim(message, clock.now());
    clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    const provider = new ScriptedProvider([sent]);
    expect(await deliver(message, FRESH_CLAIM, context(provider, clock).ctx)).toMatchObject({ settled: true, state: 'UNKNOWN' });
    expect(provider.calls).toBe(0);
    expect(await row(message.key)).toMatchObject({ failureReason: 'OutcomeUnknown: an earlier attempt may have sent it; class policy is give-up' });
  });

  it('look-up class inside its evidence wait: handed back, saying it waits for evidence', async () => {
    const message = plan('transactional');
    const clock = new ControlledClock();
    await deadClaim(message, clock.now());
    clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    expect(await deliver(message, FRESH_CLAIM, context(new ScriptedProvider([sent]), clock).ctx)).toEqual({ settled: false, why: 'waiting-for-evidence' });
    expect(await row(message.key)).toMatchObject({ state: 'PENDING', lastRelease: 'ambiguous', failureReason: 'waiting for delivery evidence' });
  });

  it('look-up class with evidence of the send: SENT under a placeholder id, nothing sent again', async () => {
    const message = plan('transactional');
    const clock = new ControlledClock();
    await deadClaim(message, clock.now());
    clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    const provider = new ScriptedProvider([sent], 'sent');
    expect(await deliver(message, FRESH_CLAIM, context(provider, clock).ctx)).toMatchObject({ settled: true, state: 'SENT' });
    expect(provider.calls).toBe(0);
    expect(await row(message.key)).toMatchObject({ providerMessageId: `evidence:${message.key}` });
  });
});

describe('this attempt’s own unknown outcome', () => {
  it('give-up class: UNKNOWN with the provider’s reason', async () => {
    const message = plan('marketing');
    expect(await deliver(message, FRESH_CLAIM, context(new ScriptedProvider([hangUp]), new ControlledClock()).ctx)).toMatchObject({ state: 'UNKNOWN' });
    expect(await row(message.key)).toMatchObject({ failureReason: 'OutcomeUnknown: TimeoutError: socket hang up' });
  });

  it('look-up class whose provider has evidence of the send: SENT under a placeholder id, counted', async () => {
    const message = plan('transactional');
    const { ctx, metrics } = context(new ScriptedProvider([hangUp], 'sent'), new ControlledClock());
    expect(await deliver(message, FRESH_CLAIM, ctx)).toMatchObject({ settled: true, state: 'SENT' });
    expect(await row(message.key)).toMatchObject({ providerMessageId: `evidence:${message.key}` });
    expect(metrics.get(METRIC.SentByEvidence)).toBe(1);
  });

  it('look-up class without evidence yet: its evidence wait starts now, so it is handed back, not given up', async () => {
    const message = plan('wait-then-give-up');
    const { ctx } = context(new ScriptedProvider([hangUp], 'none'), new ControlledClock());
    expect(await deliver(message, FRESH_CLAIM, ctx)).toEqual({ settled: false, why: 'ambiguous-outcome' });
    expect(await row(message.key)).toMatchObject({ state: 'PENDING', lastRelease: 'ambiguous', failureReason: 'TimeoutError: socket hang up' });
  });
});

describe('counting', () => {
  it('every count carries the message’s channel and class', async () => {
    const { ctx, metrics } = context(new ScriptedProvider([sent]), new ControlledClock());
    await deliver(plan('otp'), FRESH_CLAIM, ctx);
    expect(Object.fromEntries(metrics.byDimensions)).toEqual({ [`${METRIC.Sent}|sms|otp`]: 1 });
  });
});

/** A ledger that answers the claim as scripted and fails every other call it was not given. */
function scriptedLedger(parts: Partial<SendLedger>): SendLedger {
  const unexpected = (name: string) => async () => {
    throw new Error(`unexpected ledger call: ${name}`);
  };
  return {
    claim: unexpected('claim'),
    takeOver: unexpected('takeOver'),
    complete: unexpected('complete'),
    release: unexpected('release'),
    releaseUnconfirmed: unexpected('releaseUnconfirmed'),
    get: unexpected('get'),
    ...parts,
  };
}

describe('claiming, against a ledger that answers as scripted', () => {
  it('a refused claim without the row in its answer reads the row (and a settled one suppresses the duplicate)', async () => {
    const message = plan('otp');
    const settled = { ...(await deadClaim(plan('otp'), Date.now())), key: message.key, state: 'SENT' as const };
    const ledger = scriptedLedger({ claim: async () => ({ claimed: false, existing: undefined }), get: async () => settled });
    const { ctx } = context(new ScriptedProvider([sent]), new ControlledClock(), { ledger });
    expect(await deliver(message, FRESH_CLAIM, ctx)).toEqual({ settled: true, state: 'SENT', settledBy: 'earlier-attempt' });
  });

  it('a row that keeps vanishing between claim and read is claimed at most twice, then left to the queue', async () => {
    let claims = 0;
    const ledger = scriptedLedger({
      claim: async () => {
        claims += 1;
        return { claimed: false, existing: undefined };
      },
      get: async () => undefined,
    });
    const { ctx } = context(new ScriptedProvider([sent]), new ControlledClock(), { ledger });
    expect(await deliver(plan('otp'), FRESH_CLAIM, ctx)).toEqual({ settled: false, why: 'owned-by-another-worker' });
    expect(claims).toBe(2);
  });

  it.each([
    ['an Error', Object.assign(new Error('socket timed out'), { name: 'TimeoutError' }), 'LedgerError: TimeoutError'],
    ['something else', 'connection lost', 'LedgerError: unknown'],
  ])('a claim whose request failed with %s is handed back as already released, and counted only if that worked', async (_what, thrown, detail) => {
    const releases: { attempt: UnconfirmedClaim; release: Release }[] = [];
    for (const released of [true, false]) {
      const ledger = scriptedLedger({
        claim: async () => {
          throw thrown;
        },
        releaseUnconfirmed: async (attempt, release) => {
          releases.push({ attempt, release });
          return released;
        },
      });
      const { ctx, metrics } = context(new ScriptedProvider([sent]), new ControlledClock(), { ledger });
      expect(await deliver(plan('otp'), FRESH_CLAIM, ctx)).toEqual({ settled: false, why: 'ledger-error' });
      expect(metrics.get(METRIC.ClaimReleasedAfterLedgerError)).toBe(released ? 1 : 0);
    }
    expect(releases.map((r) => [r.attempt.kind, r.release])).toEqual([
      ['claim', { reason: 'transient', detail, lastAmbiguousAt: undefined }],
      ['claim', { reason: 'transient', detail, lastAmbiguousAt: undefined }],
    ]);
  });
});

describe('a record that is not settled', () => {
  it('is handed back with a RetryLaterError naming how many of its messages are not settled, and why', async () => {
    const event = loginCodeEvent({
      eventId: 'evt-paths-retry-later',
      recipients: [
        { recipientId: 'u-1', phone: '+14155550101', channels: ['sms'] },
        { recipientId: 'u-2', phone: '+14155550102', channels: ['sms'] },
      ],
    });
    const provider = new ScriptedProvider([
      { kind: 'transient', cause: 'throttled', reason: 'Throttling: Rate exceeded' },
      { kind: 'transient', cause: 'quota-exhausted', reason: 'ThrottlingException: Daily message quota exceeded.' },
    ]);
    const { ctx } = context(provider, new ControlledClock());
    const attempt = processRecord(
      { messageId: 'm-1', body: JSON.stringify(event) },
      {
        ...ctx,
        deadLetters: new InMemoryDeadLetters(),
        messageClasses: CLASSES,
        templates: TEMPLATES,
        maxBodyBytes: 65_536,
        maxClockSkewMs: 300_000,
        limit: (task) => task(),
      },
    );
    await expect(attempt).rejects.toThrow(RetryLaterError);
    await attempt.catch((error: RetryLaterError) => {
      expect(error.message).toMatch(/^2 of 2 messages of event evt-paths-retry-later not settled \(transient-failure:(throttled|quota-exhausted), transient-failure:(throttled|quota-exhausted)\)$/);
      // One message waits on the daily quota: the whole record pauses for the longest step.
      expect(error.backoff).toBe('pause');
    });
  });
});

describe('how the result says a message was settled (callers read this, never the metrics)', () => {
  it('SENT by this call’s own provider request', async () => {
    const message = plan('transactional');
    const result = await deliver(message, FRESH_CLAIM, context(new ScriptedProvider([sent]), new ControlledClock()).ctx);
    expect(result).toEqual({ settled: true, state: 'SENT', settledBy: 'provider-call' });
  });

  it('FAILED by this call’s own provider request, refused for good', async () => {
    const refused: DeliveryOutcome = { kind: 'permanent', reason: 'InvalidParameter: bad number' };
    const result = await deliver(plan('transactional'), FRESH_CLAIM, context(new ScriptedProvider([refused]), new ControlledClock()).ctx);
    expect(result).toEqual({ settled: true, state: 'FAILED', settledBy: 'provider-call' });
  });

  it('SENT on evidence of an earlier call, resumed from the row: nothing sent, not a resend', async () => {
    const message = plan('transactional');
    const clock = new ControlledClock();
    const row = await deadClaim(message, clock.now());
    clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    const provider = new ScriptedProvider([sent], 'sent');
    expect(await deliver(message, { kind: 'resume', row }, context(provider, clock).ctx)).toEqual({ settled: true, state: 'SENT', settledBy: 'evidence' });
    expect(provider.calls).toBe(0);
  });

  it('SENT again after an earlier unknown outcome, resumed from the row: this call’s provider request', async () => {
    const message = plan('otp');
    const clock = new ControlledClock();
    const row = await deadClaim(message, clock.now());
    clock.advance(CLAIM_TIMEOUT_MS + 1_000);
    const provider = new ScriptedProvider([sent]);
    expect(await deliver(message, { kind: 'resume', row }, context(provider, clock).ctx)).toEqual({ settled: true, state: 'SENT', settledBy: 'provider-call' });
    expect(provider.calls).toBe(1);
  });

  it('UNKNOWN by the class’s give-up policy', async () => {
    const result = await deliver(plan('marketing'), FRESH_CLAIM, context(new ScriptedProvider([hangUp]), new ControlledClock()).ctx);
    expect(result).toEqual({ settled: true, state: 'UNKNOWN', settledBy: 'policy' });
  });

  it('FAILED without a call when the message can never be sent', async () => {
    const message = plan('transactional');
    const unsendable: MessagePlan = { ...message, prepared: { ok: false, reason: 'InvalidAddress: no phone number' } };
    const provider = new ScriptedProvider([]);
    expect(await deliver(unsendable, FRESH_CLAIM, context(provider, new ControlledClock()).ctx)).toEqual({ settled: true, state: 'FAILED', settledBy: 'unsendable' });
    expect(provider.calls).toBe(0);
  });
});
