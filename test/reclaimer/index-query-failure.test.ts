import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryProvider } from '../../functions/core/provider/delivery-provider';
import { pendingShardOf } from '../../functions/core/ledger/ledger-table';
import { METRIC } from '../../functions/core/observability/metric-names';
import type { StalePendingSource } from '../../functions/core/ledger/stale-pending';
import { ControlledClock } from '../support/controlled-clock';
import { loginCodeEvent } from '../support/events';
import { useTestLedger } from '../support/ledger-server';
import { tempDir } from '../support/temp-dir';
import { ReclaimerHarness, seedDeadClaims, TIMING } from './reclaimer-harness';

const db = useTestLedger();

class IndexUnavailable extends Error {
  override readonly name = 'InternalServerError';
}

describe('a pending-index query that fails', () => {
  // Found by the interleaving run's ledger outages: the run rejected on the first failed shard query
  // while other rows were still being sent. Lambda freezes an invocation that has answered, and thaws
  // its unfinished work on a later invocation, possibly after the lease: a send nobody then owns.
  it('does not end the run while another row may still be sending; the shard is left for the next run', async () => {
    const clock = new ControlledClock();
    const [row] = await seedDeadClaims(db.ledger, loginCodeEvent({ eventId: 'evt-index-query-fails' }), clock.now());
    clock.advance(TIMING.claimTimeoutMs + 1);
    const failingShard = pendingShardOf(row!.key) === '0' ? '1' : '0';
    const source: StalePendingSource = {
      listStalePending: async (shard, before, limit, cursor) => {
        if (shard === failingShard) throw new IndexUnavailable('index query failed');
        return db.ledger.listStalePending(shard, before, limit, cursor);
      },
    };
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const reclaimer = new ReclaimerHarness({
      ledger: new Proxy(db.ledger, {
        get: (target, property, receiver) =>
          property === 'listStalePending' ? source.listStalePending : (Reflect.get(target, property, receiver) as unknown),
      }),
      clock,
      outboxFile: `${tempDir('index-query-')}/outbox.jsonl`,
      wrapProvider: (provider): DeliveryProvider => ({
        send: async (request, signal): Promise<DeliveryOutcome> => {
          await answered;
          return provider.send(request, signal);
        },
      }),
    });

    let ended = false;
    const run = reclaimer.run().finally(() => {
      ended = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ended).toBe(false); // the takeover's send is in flight

    answer();
    const summary = await run;
    expect(summary).toMatchObject({ resent: 1, stoppedEarly: true });
    expect(reclaimer.metrics.get(METRIC.LedgerError)).toBe(1);
    expect(await db.ledger.get(row!.key)).toMatchObject({ state: 'SENT' });
  });
});
