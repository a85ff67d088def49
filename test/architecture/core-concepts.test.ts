import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORE_CONCEPTS, conceptViolations, crowdedFolders } from './core-concepts';
import { importCycles, readImportGraph } from './import-graph';
import { importsIntoFunctions, importsLeavingFunctions, reachableFrom, TOOL_FOLDERS } from './lambda-reach';

const ROOT = join(import.meta.dirname, '..', '..');
const FUNCTIONS = join(ROOT, 'functions');

describe('functions/core by concept (docs/design/architecture.md)', () => {
  const graph = readImportGraph(FUNCTIONS);
  const coreFiles = [...graph.keys()].filter((file) => file.startsWith('core/'));

  it('reads the real tree: every concept folder is there and holds files', () => {
    const folders = new Set(coreFiles.map((file) => file.split('/')).filter((parts) => parts.length === 3).map((parts) => parts[1]));
    expect(folders).toEqual(new Set(Object.keys(CORE_CONCEPTS)));
    expect(graph.get('core/ledger/ledger-decision.ts')).toContain('core/ledger/ledger-record.ts');
  });

  it('has no import across concepts that CORE_CONCEPTS does not allow, and no file outside a concept but the kernel and the settings', () => {
    expect(conceptViolations(graph)).toEqual([]);
  });

  it('has no circle inside functions/core', () => {
    const core = new Map([...graph].filter(([file]) => file.startsWith('core/')));
    expect(importCycles(core)).toEqual([]);
  });

  it('keeps core\'s top and each concept folder small', () => {
    expect(crowdedFolders(coreFiles)).toEqual([]);
  });

  it('gives each concept folder a README.md that names what it may import', () => {
    for (const [concept, allowed] of Object.entries(CORE_CONCEPTS)) {
      const readme = join(FUNCTIONS, 'core', concept, 'README.md');
      expect(existsSync(readme), `functions/core/${concept}/README.md`).toBe(true);
      expect(readFileSync(readme, 'utf8'), `functions/core/${concept}/README.md`).toContain(`May import: ${['the kernel', ...allowed].join(', ')}.`);
    }
  });

  it('flags a concept importing one it may not, the kernel importing a concept, a concept importing the settings, and an unplaced file', () => {
    const bad = new Map([
      ['core/templates/templates.ts', ['core/ledger/ledger-record.ts', 'core/event/idempotency-key.ts', 'core/schema.ts']],
      ['core/errors.ts', ['core/event/idempotency-key.ts']],
      ['core/policy/consent.ts', ['core/sender-config.ts']],
      ['core/sender-config.ts', ['core/ledger/ledger-table.ts']],
      ['core/anything.ts', []],
      ['core/misc/thing.ts', []],
    ]);
    expect(conceptViolations(bad)).toEqual([
      'core/templates/templates.ts -> core/ledger/ledger-record.ts: templates/ may not import ledger/ (it may import event)',
      'core/errors.ts -> core/event/idempotency-key.ts: the kernel imports a concept (event)',
      'core/policy/consent.ts -> core/sender-config.ts: a concept (policy) imports the settings that compose the concepts',
      "core/anything.ts: a file at core's top that is neither kernel nor composition (put it in its concept's folder, or list it in CORE_KERNEL)",
      'core/misc/thing.ts: core/misc/ is no concept (add it to CORE_CONCEPTS with what it may import, and a README.md)',
    ]);
  });

  it('flags a folder one file past its limit', () => {
    const sixteen = Array.from({ length: 16 }, (_, i) => `core/ledger/f${i}.ts`);
    const thirteen = Array.from({ length: 13 }, (_, i) => `core/f${i}.ts`);
    expect(crowdedFolders([...sixteen.slice(1), ...thirteen.slice(1)])).toEqual([]);
    expect(crowdedFolders([...sixteen, ...thirteen])).toEqual(['core/ledger/: 16 files (at most 15)', 'core/: 13 files (at most 12)']);
  });
});

describe('functions/ holds only what a Lambda or a tool a person runs can reach', () => {
  const graph = readImportGraph(FUNCTIONS);
  const handlers = [...graph.keys()].filter((file) => file.endsWith('/handler.ts'));
  const fromTools = importsIntoFunctions(ROOT, TOOL_FOLDERS);

  it('has no file imported only by synth (lib/), the benches or the tests: such code is not the Lambdas\' and lives beside its users', () => {
    expect(handlers).toEqual(expect.arrayContaining(['sender/handler.ts', 'reclaimer/handler.ts', 'status/handler.ts']));
    const reached = reachableFrom(graph, [...handlers, ...fromTools.keys()]);
    const orphans = [...graph.keys()].filter((file) => !reached.has(file));
    const synthOnly = importsIntoFunctions(ROOT, ['lib', 'bench']);
    expect(orphans.map((file) => `functions/${file} (imported by ${(synthOnly.get(file) ?? ['nothing']).join(', ')})`)).toEqual([]);
  });

  it('never imports outside functions/, so no Lambda bundle reaches the capacity model or any synth code', () => {
    expect(importsLeavingFunctions(ROOT)).toEqual([]);
    expect(readdirSync(join(ROOT, 'lib', 'capacity-model'))).toContain('ledger-capacity.ts');
  });
});
