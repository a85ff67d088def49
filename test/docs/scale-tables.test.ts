import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLogBytes } from '../../bench/scale/log-bytes-result';
import { markedTables, replaceTables } from '../../bench/scale/scale-page';
import { scaleTables } from '../../bench/scale/scale-tables';

const ROOT = join(import.meta.dirname, '..', '..');
const page = readFileSync(join(ROOT, 'docs', 'scale.md'), 'utf8');
const tables = scaleTables(readLogBytes(ROOT));

describe('docs/scale.md is what the capacity model computes (npx tsx bench/scale/print-scale-tables.ts --write)', () => {
  it('marks every table the model makes, once', () => {
    expect(markedTables(page).sort()).toEqual(Object.keys(tables).sort());
  });

  it.each(Object.keys(tables))('its %s table is the model\'s, to the character', (name) => {
    const start = page.indexOf(`<!-- table:${name} -->\n`) + `<!-- table:${name} -->\n`.length;
    const end = page.indexOf(`\n<!-- /table:${name} -->`);
    expect(page.slice(start, end)).toBe(tables[name]);
  });

  it('replaces a marked table and refuses a marker the model has no table for', () => {
    expect(replaceTables('<!-- table:units -->\nold\n<!-- /table:units -->', { units: 'new' })).toBe('<!-- table:units -->\nnew\n<!-- /table:units -->');
    expect(() => replaceTables('<!-- table:nope -->\nold\n<!-- /table:nope -->', {})).toThrow('docs/scale.md marks a table "nope" the model does not make');
  });
});
