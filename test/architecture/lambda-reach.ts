import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** Folders of the repository whose code a person runs (the CLI, `npm start` and the simulations, the AWS check). */
export const TOOL_FOLDERS: readonly string[] = ['cli', 'local', 'scripts'];

/** Each import from a file of `folders` (below `root`) into functions/, as the functions/-relative path it names. */
export function importsIntoFunctions(root: string, folders: readonly string[]): Map<string, string[]> {
  const functionsDir = join(root, 'functions');
  const importers = new Map<string, string[]>();
  for (const folder of folders) {
    for (const file of sourceFiles(join(root, folder))) {
      for (const ref of ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles) {
        if (!ref.fileName.startsWith('.')) continue;
        const target = relative(functionsDir, resolve(dirname(file), ref.fileName));
        if (target.startsWith('..')) continue;
        const path = target.endsWith('.ts') ? target : `${target}.ts`;
        importers.set(path, [...(importers.get(path) ?? []), relative(root, file)]);
      }
    }
  }
  return importers;
}

/** The files of `graph` reachable by imports from `entries`. */
export function reachableFrom(graph: ReadonlyMap<string, readonly string[]>, entries: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const stack = [...entries];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    stack.push(...(graph.get(file) ?? []));
  }
  return seen;
}

/** Imports from a file of functions/ that leave it (into lib/, bench/ or anywhere else of the repository). */
export function importsLeavingFunctions(root: string): string[] {
  const functionsDir = join(root, 'functions');
  return sourceFiles(functionsDir).flatMap((file) =>
    ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles
      .filter((ref) => ref.fileName.startsWith('.') && relative(functionsDir, resolve(dirname(file), ref.fileName)).startsWith('..'))
      .map((ref) => `${relative(root, file)} -> ${ref.fileName}`),
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.m?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.d.mts') ? [path] : [];
  });
}
