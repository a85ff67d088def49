/**
 * The outcome publisher's own time for one full batch (100 stream records of rows settling SENT), with a bus that
 * answers at once: the part of its duration that is not PutEvents round trips. The cost table adds 10 round trips
 * (one PutEvents per 10 events, sent one after another) at the model's provider median (bench/scale/scale-tables.ts).
 *   npx tsx bench/scale/outcome-publisher-cpu.ts
 */
import { silentLog } from '../../functions/core/observability/log-port';
import { InMemoryMetrics } from '../../functions/core/observability/metrics-recorder';
import { createOutcomePublisher } from '../../functions/outcomes/create-outcome-publisher';
import { batchOf, claimRow, keyOf, rowWrite, sentRow } from '../../test/outcomes/stream-records';

const publisher = createOutcomePublisher({ bus: { publish: async () => [] }, metrics: new InMemoryMetrics(), log: silentLog });
const batches = Array.from({ length: 50 }, (_, b) => batchOf(Array.from({ length: 100 }, (_, i) => rowWrite(claimRow(keyOf(b * 100 + i)), sentRow(keyOf(b * 100 + i))))));
for (const batch of batches.slice(0, 10)) await publisher(batch, {} as never);
const started = process.hrtime.bigint();
for (const batch of batches) await publisher(batch, {} as never);
const msPerBatch = Number(process.hrtime.bigint() - started) / 1e6 / batches.length;
process.stdout.write(`${msPerBatch.toFixed(2)} ms per batch of 100 records\n`);
