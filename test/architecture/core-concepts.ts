/**
 * The concepts of functions/core, each a folder, with the concepts it may import. Besides these, every concept
 * may import the kernel (the few files at core's top that import no concept). `sender-config.ts`, also at the top,
 * composes the settings of every concept, so it may import them all and nothing in a concept imports it.
 * docs/design/architecture.md draws the same map; each folder's README.md says what its concept is.
 */
export const CORE_CONCEPTS: Readonly<Record<string, readonly string[]>> = {
  event: [],
  queue: [],
  templates: ['event'],
  'template-checks': ['event', 'templates'],
  policy: ['event', 'templates'],
  ledger: ['event', 'templates', 'policy'],
  provider: ['event', 'templates', 'policy', 'ledger'],
  outcome: ['event', 'templates', 'policy', 'ledger', 'provider'],
  fallback: ['event', 'templates', 'policy', 'ledger', 'provider', 'outcome'],
  observability: ['event', 'policy'],
};

/** Core's top-level files that every concept may use; they import no concept. */
export const CORE_KERNEL: readonly string[] = ['clock.ts', 'errors.ts', 'json-objects.ts', 'schema.ts'];

/** Core's top-level files that compose the concepts (may import every concept; imported by no concept). */
export const CORE_COMPOSITION: readonly string[] = ['sender-config.ts'];

/** At most this many files at core's top, and in each concept folder (a folder past it is a new flat bag). */
export const MAX_CORE_TOP_FILES = 12;
export const MAX_CONCEPT_FILES = 15;

/** What a file of core is part of: a concept folder's name, `kernel`, `composition`, or undefined when it is not in core. */
export function conceptOf(file: string): string | undefined {
  const parts = file.split('/');
  if (parts[0] !== 'core') return undefined;
  if (parts.length === 2) {
    const name = parts[1] ?? '';
    if (CORE_KERNEL.includes(name)) return 'kernel';
    if (CORE_COMPOSITION.includes(name)) return 'composition';
    return `unplaced:${name}`;
  }
  return parts[1];
}

/** Imports inside functions/core that cross concepts against CORE_CONCEPTS, and core files in no known place. */
export function conceptViolations(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const problems: string[] = [];
  for (const [from, targets] of graph) {
    const source = conceptOf(from);
    if (source === undefined) continue;
    if (source.startsWith('unplaced:')) {
      problems.push(`${from}: a file at core's top that is neither kernel nor composition (put it in its concept's folder, or list it in CORE_KERNEL)`);
      continue;
    }
    if (source !== 'kernel' && source !== 'composition' && !(source in CORE_CONCEPTS)) {
      problems.push(`${from}: core/${source}/ is no concept (add it to CORE_CONCEPTS with what it may import, and a README.md)`);
      continue;
    }
    for (const to of targets) {
      const target = conceptOf(to);
      if (target === undefined || target === source || target === 'kernel' || source === 'composition') continue;
      if (source === 'kernel') problems.push(`${from} -> ${to}: the kernel imports a concept (${target})`);
      else if (target === 'composition') problems.push(`${from} -> ${to}: a concept (${source}) imports the settings that compose the concepts`);
      else if (!(CORE_CONCEPTS[source] ?? []).includes(target)) problems.push(`${from} -> ${to}: ${source}/ may not import ${target}/ (it may import ${(CORE_CONCEPTS[source] ?? []).join(', ') || 'only the kernel'})`);
    }
  }
  return problems;
}

/** Folders of core (and core's top) holding more files than they may, from the paths of core's .ts files. */
export function crowdedFolders(files: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const file of files) {
    const parts = file.split('/');
    if (parts[0] !== 'core') continue;
    const folder = parts.length === 2 ? 'core' : `core/${parts[1]}`;
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return [...counts]
    .filter(([folder, n]) => n > (folder === 'core' ? MAX_CORE_TOP_FILES : MAX_CONCEPT_FILES))
    .map(([folder, n]) => `${folder}/: ${n} files (at most ${folder === 'core' ? MAX_CORE_TOP_FILES : MAX_CONCEPT_FILES})`);
}
