import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The floors of functions/, from the ground up: a room may import its own floor's files and any floor
 * below, never one above. The Lambdas share the top floor and import nothing of each other (what two of
 * them need belongs in delivery/ or below). See docs/design/architecture.md, "Architecture".
 */
export const FLOORS: Readonly<Record<string, number>> = {
  core: 1,
  adapters: 2,
  delivery: 3,
  sender: 4,
  reclaimer: 4,
  status: 4,
  outcomes: 4,
  fallback: 4,
};

/** One import between two files of functions/, both as paths relative to functions/. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
}

/** Every file of functions/ with the files of functions/ it imports (static, type-only, re-exports and `import()`). */
export function readImportGraph(functionsDir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(functionsDir)) {
    const imported = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles
      .map((ref) => ref.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolveSource(dirname(file), name))
      .filter((target): target is string => target !== undefined && !relative(functionsDir, target).startsWith('..'))
      .map((target) => relative(functionsDir, target));
    graph.set(relative(functionsDir, file), [...new Set(imported)]);
  }
  return graph;
}

/** The room (top folder of functions/) a file stands in. */
export function roomOf(file: string): string {
  return file.split('/')[0] ?? file;
}

/** Imports that run back up a floor, across Lambdas, or into a room that has no floor. */
export function floorViolations(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const problems: string[] = [];
  for (const [from, targets] of graph) {
    const fromRoom = roomOf(from);
    const fromFloor = FLOORS[fromRoom];
    if (fromFloor === undefined) {
      problems.push(`${from}: its room ${fromRoom}/ has no floor (add it to FLOORS and to docs/design/architecture.md, "Architecture")`);
      continue;
    }
    for (const to of targets) {
      const toRoom = roomOf(to);
      const toFloor = FLOORS[toRoom];
      if (toFloor === undefined) problems.push(`${from} -> ${to}: ${toRoom}/ has no floor`);
      else if (toFloor > fromFloor) problems.push(`${from} -> ${to}: ${fromRoom}/ (floor ${fromFloor}) imports from ${toRoom}/ (floor ${toFloor}), up a floor`);
      else if (toFloor === fromFloor && toRoom !== fromRoom) problems.push(`${from} -> ${to}: one Lambda imports another (${fromRoom}/ -> ${toRoom}/)`);
    }
  }
  return problems;
}

/** Each circle of imports, as the files around it (Tarjan's strongly connected components, self-imports included). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The .ts file an import names (extensionless, as this project writes them, or a folder's index.ts). */
function resolveSource(fromDir: string, name: string): string | undefined {
  const base = resolve(fromDir, name);
  return [`${base}.ts`, join(base, 'index.ts'), base].find((candidate) => candidate.endsWith('.ts') && existsSync(candidate));
}
