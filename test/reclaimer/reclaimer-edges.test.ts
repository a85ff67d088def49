import { randomUUID } from 'node:crypto';

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutboxProvider, readOutbox } from '../../functions/adapters/outbox-provider';
import { newClaimRow } from '../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { silentLog } from '../../functions/core/observability/log-port';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { METRIC } from '../../functions/core/observability/metric-names';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import type { SendLedger } from '../../functions/core/ledger/send-ledger';
import type { StalePendingSource } from '../../functions/core/ledger/stale-pending';
import { createReclaimer, type ReclaimerRunSummary } from '../../functions/reclaimer/create-reclaimer';
import { createReclaimerHandler } from '../../functions/reclaimer/create-reclaimer-handler';
import { RECLAIMER_SAFETY_MARGIN_MS } from '../../functions/reclaimer/reclaimer-config';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { CLAIM_TIMEOUT_MS } from '../support/sender-harness';
import { lambdaContext } from '../support/sqs-event';
import { plansOf, seedDeadClaims, storedMessage, TIMING } from './reclaimer-harness';
import { tempDir } from '../support/temp-dir';
import { DEFAULT_PUSH_POLICY } from '../../functions/core/templates/push-policy';

const db = useTestLedger();
const SEND_TIMEOUT_MS = 2_000;

/** A reclaimer over `ledger` (with `pending` as its index) whose clock only moves when the test moves it. */
function reclaimerOver(ledger: SendLedger, pending: StalePendingSource, clock: ControlledClock) {
  const outboxFile = join(tempDir('notifier-reclaimer-edges-'), 'outbox.jsonl');
  const metrics = new InMemoryMetrics();
  const outbox = new OutboxProvider(outboxFile, clock.now);
  const deps = {
    ledger,
    pending,
    providers: { email: outbox, sms: outbox, push: outbox },
    metrics,
    log: silentLog,
    clock: clock.now,
    newOwnerToken: randomUUID,
    timing: TIMING,
    sendTimeoutMs: SEND_TIMEOUT_MS,
    messageClasses: buildMessageClassRegistry(),
    limits: { timeBudgetMs: 20_000, maxRowsPerRun: 500, pageSize: 25, concurrency: 4 },
  };
  return { reclaimer: createReclaimer(deps), deps, metrics, sends: async () => (await readOutbox(outboxFile)).length };
}

/** An index that lists exactly `rows`, in shard 0. */
const indexOf = (rows: readonly LedgerRow[]): StalePendingSource => ({
  listStalePending: async (shard) => ({ rows: shard === '0' ? rows.map((r) => ({ key: r.key, claimedAt: r.claimedAt })) : [], cursor: undefined }),
});

let events = 0;
async function deadOtpClaim(clock: ControlledClock, ageMs = CLAIM_TIMEOUT_MS + 1_000): Promise<LedgerRow> {
  events += 1;
  const [row] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId: `evt-reclaim-edge-${events}`, messageClass: 'otp' }), clock.now() - ageMs);
  return row!;
}

describe('the run’s budget is capped by the time Lambda has left', () => {
  it('with no more than the send timeout and the margin left, no row is started', async () => {
    const clock = new ControlledClock();
    const row = await deadOtpClaim(clock);
    const { reclaimer, sends } = reclaimerOver(db.ledger, indexOf([row]), clock);
    const summary = await reclaimer.run({ remainingTimeMs: SEND_TIMEOUT_MS + RECLAIMER_SAFETY_MARGIN_MS });
    expect(summary).toMatchObject({ found: 0, stoppedEarly: true });
    expect(await sends()).toBe(0);
    expect(await db.ledger.get(row.key)).toEqual(row);
  });

  it('one millisecond more, and the row is settled (the clock has not moved)', async () => {
    const clock = new ControlledClock();
    const row = await deadOtpClaim(clock);
    const { reclaimer } = reclaimerOver(db.ledger, indexOf([row]), clock);
    const summary = await reclaimer.run({ remainingTimeMs: SEND_TIMEOUT_MS + RECLAIMER_SAFETY_MARGIN_MS + 1 });
    expect(summary).toMatchObject({ found: 1, resent: 1 });
  });

  it('the scheduled handler passes Lambda’s remaining time to the run', async () => {
    const clock = new ControlledClock();
    const row = await deadOtpClaim(clock);
    const { deps } = reclaimerOver(db.ledger, indexOf([row]), clock);
    const handler = createReclaimerHandler(deps);
    const summary = await handler({}, { ...lambdaContext(), getRemainingTimeInMillis: () => SEND_TIMEOUT_MS + RECLAIMER_SAFETY_MARGIN_MS });
    expect(summary).toMatchObject({ found: 0, stoppedEarly: true });
  });
});

describe('what the consistent read says decides, whatever the index listed', () => {
  it('a row that is no longer PENDING is skipped', async () => {
    const clock = new ControlledClock();
    const row = await deadOtpClaim(clock);
    expect(await db.ledger.complete(row, { state: 'SENT', providerMessageId: 'p-1' }, clock.now(), row.expiresAt)).toBe(true);
    const { reclaimer, sends } = reclaimerOver(db.ledger, indexOf([row]), clock);
    expect(await reclaimer.run()).toMatchObject({ found: 0, skipped: 1 });
    expect(await sends()).toBe(0);
  });

  it('a lease longer than this claim timeout (written under another setting) is respected to its end', async () => {
    const clock = new ControlledClock();
    events += 1;
    const claimedAt = clock.now() - CLAIM_TIMEOUT_MS - 60_000;
    const [plan] = plansOf(loginCodeEvent({ eventId: `evt-reclaim-edge-${events}`, messageClass: 'otp' }));
    if (!plan?.prepared.ok) throw new Error('the login-code plan must be sendable');
    const subject = { key: plan.key, ...plan.identity, messageClass: 'otp', occurredAt: plan.occurredAt, request: plan.prepared.request.message };
    // Leased for 60 s longer than this deployment's claim timeout: the lease ends exactly now.
    const row = newClaimRow({ subject, ownerToken: 'dead-owner', nowMs: claimedAt, timing: { ...TIMING, claimTimeoutMs: CLAIM_TIMEOUT_MS + 60_000 } });
    expect(await db.ledger.claim(row, claimedAt)).toEqual({ claimed: true });
    expect(row.leaseExpiresAt).toBe(clock.now());

    clock.advance(-1);
    const early = reclaimerOver(db.ledger, indexOf([row]), clock);
    expect(await early.reclaimer.run()).toMatchObject({ found: 0, skipped: 1 });
    clock.advance(1);
    const atEnd = reclaimerOver(db.ledger, indexOf([row]), clock);
    expect(await atEnd.reclaimer.run()).toMatchObject({ found: 1, resent: 1 });
  });

  it('a row that cannot be read is left for the next run and counted as a ledger error', async () => {
    const clock = new ControlledClock();
    const row = await deadOtpClaim(clock);
    const unreadable: SendLedger = {
      claim: (r, n) => db.ledger.claim(r, n),
      takeOver: (k, f) => db.ledger.takeOver(k, f),
      complete: (c, o, n, e) => db.ledger.complete(c, o, n, e),
      release: (c, r, n) => db.ledger.release(c, r, n),
      releaseUnconfirmed: (a, r, n) => db.ledger.releaseUnconfirmed(a, r, n),
      get: async () => {
        throw new Error('read timed out');
      },
    };
    const { reclaimer, metrics } = reclaimerOver(unreadable, indexOf([row]), clock);
    expect(await reclaimer.run()).toMatchObject({ found: 1, leftPending: 1 });
    expect(metrics.get(METRIC.LedgerError)).toBe(1);
  });
});

describe('each settled row is counted once, under its outcome, by channel and class', () => {
  async function reclaimOne(messageClass: string, withEvidence: boolean): Promise<{ summary: ReclaimerRunSummary; metrics: InMemoryMetrics }> {
    const clock = new ControlledClock();
    events += 1;
    const [row] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId: `evt-reclaim-count-${events}`, messageClass }), clock.now() - CLAIM_TIMEOUT_MS - 400_000);
    const { reclaimer, metrics, deps } = reclaimerOver(db.ledger, indexOf([row!]), clock);
    if (withEvidence) await deps.providers.sms.send({ key: row!.key, message: storedMessage(row!), messageClass, smsType: 'Transactional', push: DEFAULT_PUSH_POLICY, templateId: 'login-code', claimVersion: 1 }, new AbortController().signal);
    return { summary: await reclaimer.run(), metrics };
  }
  /** The stale row found and how it was settled, by channel and class. */
  const counted = (metrics: InMemoryMetrics, messageClass: string) =>
    Object.fromEntries(
      [METRIC.StalePendingFound, METRIC.ReclaimedSent, METRIC.ReclaimedResent, METRIC.ReclaimedGaveUp].map((name) => [
        name,
        metrics.byDimensions.get(`${name}|sms|${messageClass}`) ?? 0,
      ]),
    );

  it('a resend (otp)', async () => {
    const { summary, metrics } = await reclaimOne('otp', false);
    expect(summary).toMatchObject({ found: 1, resent: 1 });
    expect(counted(metrics, 'otp')).toEqual({ [METRIC.StalePendingFound]: 1, [METRIC.ReclaimedSent]: 0, [METRIC.ReclaimedResent]: 1, [METRIC.ReclaimedGaveUp]: 0 });
  });

  it('marked sent on evidence (transactional, the provider has it)', async () => {
    const { summary, metrics } = await reclaimOne('transactional', true);
    expect(summary).toMatchObject({ found: 1, sent: 1 });
    expect(counted(metrics, 'transactional')).toEqual({ [METRIC.StalePendingFound]: 1, [METRIC.ReclaimedSent]: 1, [METRIC.ReclaimedResent]: 0, [METRIC.ReclaimedGaveUp]: 0 });
  });

  it('given up (marketing)', async () => {
    const { summary, metrics } = await reclaimOne('marketing', false);
    expect(summary).toMatchObject({ found: 1, gaveUp: 1 });
    expect(counted(metrics, 'marketing')).toEqual({ [METRIC.StalePendingFound]: 1, [METRIC.ReclaimedSent]: 0, [METRIC.ReclaimedResent]: 0, [METRIC.ReclaimedGaveUp]: 1 });
  });
});
