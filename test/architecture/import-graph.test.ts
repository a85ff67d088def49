import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLOORS, floorViolations, importCycles, readImportGraph, roomOf } from './import-graph';

const FUNCTIONS = join(import.meta.dirname, '..', '..', 'functions');

describe('the floors of functions/ (core -> adapters -> delivery -> the Lambdas)', () => {
  const graph = readImportGraph(FUNCTIONS);

  it('reads the real tree: every room, and the imports the delivery room is known to have', () => {
    expect(new Set([...graph.keys()].map(roomOf))).toEqual(new Set(Object.keys(FLOORS)));
    expect(graph.get('delivery/deliver-message.ts')).toEqual(expect.arrayContaining(['delivery/acquire-claim.ts', 'delivery/send-gate.ts']));
    expect(graph.get('delivery/acquire-claim.ts')).toContain('core/ledger/ledger-decision.ts');
    expect(graph.get('delivery/send-gate.ts')).toContain('delivery/abuse-guard.ts');
    // import() counts too: the reclaimer reaches the provider wiring only that way.
    expect(graph.get('delivery/on-demand-sending.ts')).toContain('delivery/provider-wiring.ts');
  });

  it('has no import that goes back up a floor, across Lambdas, or into a room without a floor', () => {
    expect(floorViolations(graph)).toEqual([]);
  });

  it('has no circle of imports', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('flags an import up a floor, one Lambda importing another, and a room without a floor', () => {
    const bad = new Map([
      ['core/clock.ts', ['delivery/deliver-message.ts']],
      ['adapters/dynamodb-ledger.ts', ['core/clock.ts']],
      ['reclaimer/handler.ts', ['sender/process-record.ts', 'adapters/dynamodb-ledger.ts']],
      ['utils/anything.ts', []],
    ]);
    expect(floorViolations(bad)).toEqual([
      'core/clock.ts -> delivery/deliver-message.ts: core/ (floor 1) imports from delivery/ (floor 3), up a floor',
      'reclaimer/handler.ts -> sender/process-record.ts: one Lambda imports another (reclaimer/ -> sender/)',
      'utils/anything.ts: its room utils/ has no floor (add it to FLOORS and to docs/design/architecture.md, "Architecture")',
    ]);
  });

  it('flags a circle, however long, and a file importing itself, but not a diamond', () => {
    const circle = new Map([
      ['core/a.ts', ['core/b.ts']],
      ['core/b.ts', ['core/c.ts']],
      ['core/c.ts', ['core/a.ts']],
      ['core/self.ts', ['core/self.ts']],
      ['core/top.ts', ['core/left.ts', 'core/right.ts']],
      ['core/left.ts', ['core/bottom.ts']],
      ['core/right.ts', ['core/bottom.ts']],
      ['core/bottom.ts', []],
    ]);
    expect(importCycles(circle)).toEqual([['core/a.ts', 'core/b.ts', 'core/c.ts'], ['core/self.ts']]);
  });
});
