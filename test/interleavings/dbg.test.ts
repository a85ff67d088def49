import fc from 'fast-check';
import { it, vi } from 'vitest';
import { ledgerClientConfig } from '../../functions/adapters/ledger-client-config';
import { useTestLedger } from '../support/ledger-server';
import { runSchedule } from './interleaving-model';
const db = useTestLedger();
const requestHandler = ledgerClientConfig().requestHandler;
it('dbg', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  let bad = 0;
  await fc.assert(fc.asyncProperty(fc.scheduler(), async (s) => {
    const base = Array.from({ length: 6 }, (_, i) => ({ message: i, worker: i % 3, readBeforeClaim: false }));
    const r = await runSchedule(s, { deliveries: [...base, { message: 0, worker: 1, readBeforeClaim: false }], events: [], ledgerFaults: [], providerFaults: [] },
      { tableName: db.tableName, endpoint: db.endpoint, ledger: db.ledger, requestHandler });
    if (!s) { console.log(r.violations.length, r.rows.map(x => x.state + ' ' + x.ownerToken).join(','));}
    if (r.violations.length) { bad++; if (bad === 1) console.log(r.violations, r.schedule.join('\n')); }
  }), { numRuns: 30 });
  console.log('bad', bad);
}, 100000);
