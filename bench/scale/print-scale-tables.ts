/**
 * `npx tsx bench/scale/print-scale-tables.ts [--write]`: prints the tables of docs/scale.md from the capacity model,
 * or with `--write` puts each between its `<!-- table:NAME -->` and `<!-- /table:NAME -->` markers in the page.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLogBytes } from './log-bytes-result';
import { replaceTables } from './scale-page';
import { scaleTables } from './scale-tables';

const root = join(import.meta.dirname, '..', '..');
const tables = scaleTables(readLogBytes(root));
if (process.argv.includes('--write')) {
  const page = join(root, 'docs', 'scale.md');
  writeFileSync(page, replaceTables(readFileSync(page, 'utf8'), tables));
} else {
  for (const [name, text] of Object.entries(tables)) process.stdout.write(`<!-- table:${name} -->\n${text}\n<!-- /table:${name} -->\n\n`);
}
