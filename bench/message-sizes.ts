/**
 * `npm run bench:sizes`: what a delivered e-mail costs in DynamoDB write units at about 2, 15 and 90 KB of
 * rendered HTML, for this sender (first receive and last receive), Powertools idempotency and the naive sender,
 * on one dynalite on 127.0.0.1. Write units are deterministic (no time is measured), so it is safe to run on a
 * busy machine. `npm run bench` prints the same table. Writes bench/results/message-sizes.{json,md}.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startLocalDynamo } from '../local/local-dynamo';
import { markdownTable, textTable } from '../local/text-table';
import { messageSizeFloors, messageSizeTable, probeMessageSizes } from './message-size-probe';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const RESULTS = resolve(join(import.meta.dirname, 'results'));

const dynamo = await startLocalDynamo({ separateProcess: true });
let probe;
try {
  probe = await probeMessageSizes(dynamo);
} finally {
  await dynamo.stop();
}
const table = messageSizeTable(probe);
const floors = messageSizeFloors(probe).map((f) => [f.floor, f.required, f.measured, f.met ? 'yes' : 'NO']);
const floorHeader = ['floor', 'required', 'measured', 'met'];
process.stdout.write(`\nDynamoDB write units per delivered e-mail (${probe.messages} messages per cell, table + GSI)\n${textTable(table.header, table.rows)}\n\n${textTable(floorHeader, floors)}\n`);
mkdirSync(RESULTS, { recursive: true });
writeFileSync(join(RESULTS, 'message-sizes.json'), `${JSON.stringify(probe, null, 2)}\n`);
writeFileSync(
  join(RESULTS, 'message-sizes.md'),
  [
    '# Write units per delivered e-mail, by message size',
    '',
    `An HTML order confirmation (bench/fixtures/order-confirmation.ts), ${probe.messages} messages per cell, class \`transactional\` (one limited scope), no faults. Table units are dynalite's consumed capacity (1 per started KB; an update billed on the larger of the item before and after), index units local/gsi-write-model.ts.`,
    '',
    markdownTable(table.header, table.rows),
    '',
    markdownTable(floorHeader, floors),
    '',
  ].join('\n'),
);
