import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_KINDS, type FaultRates } from '../../local/fault-plan';
import { startLocalDynamo, type LocalDynamo } from '../../local/local-dynamo';
import type { SimulationTiming } from '../../local/senders/sender-under-test';
import { runSimulation, type SimulationOptions } from '../../local/simulate';

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(async () => dynamo.stop());

/** Every fault kind on, at rates that fire each kind several times in a few hundred messages. */
const EVERY_FAULT: FaultRates = {
  crashBeforeClaim: 0.015,
  crashAfterClaim: 0.015,
  crashAfterSend: 0.015,
  crashAfterOutcome: 0.015,
  providerTimeout: 0.04,
  providerThrottle: 0.03,
  providerReject: 0.02,
  dynamoThrottle: 0.02,
};

/** Shorter than the simulator's default, still claim > function timeout > send timeout + the sender's 3 s ledger allowance. */
const TEST_TIMING: SimulationTiming = {
  functionTimeoutMs: 6_000,
  claimTimeoutMs: 6_500,
  sendTimeoutMs: 300,
  visibilityTimeoutMs: 7_000,
  retentionMs: 30 * 86_400_000,
};

const RUN: SimulationOptions = {
  events: 240,
  duplicateRate: 0.3,
  rate: 1000,
  concurrency: 16,
  batchSize: 5,
  sendsPerInvocation: 1,
  seed: 20261129,
  faults: EVERY_FAULT,
  timing: TEST_TIMING,
  // Enough receives that no record reaches the DLQ here: which records would is timing-dependent
  // (a crash costs every record of its batch a receive), and this test compares outcomes exactly.
  maxReceiveCount: 20,
};

describe('the chaos simulator', () => {
  it(
    'holds the invariants with every fault on, reproducibly per seed, and catches the naive sender duplicating',
    async () => {
      // Run concurrently on one server: different timing for each run, which reproducibility must survive.
      const [first, second, naive] = await Promise.all([
        runSimulation({ ...RUN, dynamo }),
        runSimulation({ ...RUN, dynamo }),
        runSimulation({ ...RUN, dynamo, sender: 'naive' }),
      ]);

      // Every fault kind actually fired.
      for (const kind of FAULT_KINDS) expect(first.faultsInjected[kind], kind).toBeGreaterThan(0);

      // The invariants: no duplicate provider call outside resend-after-ambiguity, nothing lost.
      expect(first.total.unexplainedDuplicates).toBe(0);
      expect(first.total.lost).toBe(0);
      expect(first.total.parkedInDeadLetterQueue).toBe(0);
      expect(first.invariants.ok).toBe(true);
      // Every message reached a terminal state, and only `otp` (policy resend) ever called twice.
      expect(first.total.finalStates.PENDING ?? 0).toBe(0);
      for (const c of first.classes) if (c.policy !== 'resend') expect(c.duplicateCalls, c.messageClass).toBe(0);

      // Same seed, same outcome counts, whatever the interleaving.
      expect(second.fingerprint).toBe(first.fingerprint);
      expect(second.faultsInjected.providerTimeout).toBe(first.faultsInjected.providerTimeout);

      // Same workload and faults: the check-then-insert sender sends duplicates the harness sees.
      expect(naive.fingerprint).not.toBe(first.fingerprint);
      expect(naive.total.unexplainedDuplicates).toBeGreaterThan(0);
      expect(naive.invariants.ok).toBe(false);
    },
    180_000,
  );
});
