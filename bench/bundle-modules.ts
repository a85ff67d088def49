/**
 * `npx tsx bench/bundle-modules.ts [--top N] [function ...]`: where a function's own bytes go (issue 50). Each function
 * bundled as the stack bundles it with the AWS SDK external (the "own code" count of bench/bundles.ts), its N largest
 * modules (default 20) by minified bytes in the output, each marked `startup` when a cold start reads it (index.mjs
 * and the chunks it imports statically) or `lazy` when it loads on first use; then the bytes per package.
 * A second or so per function; prints only.
 */
import { basename } from 'node:path';
import * as esbuild from 'esbuild';
import { HANDLER_FILE } from '../lib/function-bundle';
import { DEFAULT_ENTRIES } from '../lib/notifier-function';
import { commandLineOrExit, integerOption, parseCommandLine } from '../local/command-line';
import { textTable } from '../local/text-table';
import { deployedBuildOptions, SDK_PACKAGES } from './bundle-build';

type FunctionName = keyof typeof DEFAULT_ENTRIES;
const NAMES = Object.keys(DEFAULT_ENTRIES) as FunctionName[];
const USAGE = `usage: npx tsx bench/bundle-modules.ts [--top N] [${NAMES.join('|')} ...]\n`;

const { top, names } = commandLineOrExit(USAGE, () => {
  const { values, positionals } = parseCommandLine({ options: { top: { type: 'string', default: '20' } }, allowPositionals: true });
  const unknown = positionals.filter((name) => !NAMES.includes(name as FunctionName));
  if (unknown.length > 0) throw new Error(`unknown function ${unknown.join(', ')} (known: ${NAMES.join(', ')})`);
  return { top: integerOption('top', values.top, { min: 1, max: 1000 }), names: (positionals.length > 0 ? positionals : ['sender', 'reclaimer']) as FunctionName[] };
});

const packageOf = (input: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? '(this repository)';

for (const name of names) {
  const options = deployedBuildOptions(DEFAULT_ENTRIES[name]);
  const build = await esbuild.build({ ...options, external: [...(options.external ?? []), ...SDK_PACKAGES] });
  const staticImports = new Map(
    Object.entries(build.metafile.outputs).map(([path, output]) => [basename(path), output.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => basename(i.path))]),
  );
  const startup = new Set<string>();
  const visit = (file: string): void => {
    if (startup.has(file)) return;
    startup.add(file);
    for (const imported of staticImports.get(file) ?? []) visit(imported);
  };
  visit(HANDLER_FILE);
  const modules = new Map<string, { bytes: number; startup: boolean }>();
  let total = 0;
  for (const [path, output] of Object.entries(build.metafile.outputs)) {
    total += output.bytes;
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      if (bytesInOutput === 0) continue;
      const seen = modules.get(input) ?? { bytes: 0, startup: false };
      modules.set(input, { bytes: seen.bytes + bytesInOutput, startup: seen.startup || startup.has(basename(path)) });
    }
  }
  const byPackage = new Map<string, number>();
  for (const [input, { bytes }] of modules) byPackage.set(packageOf(input), (byPackage.get(packageOf(input)) ?? 0) + bytes);
  const largest = [...modules].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top);
  process.stdout.write(
    `\n${name}: ${total} B own code and non-AWS dependencies in ${Object.keys(build.metafile.outputs).length} files\n` +
      `${textTable(['module', 'bytes', 'read'], largest.map(([input, m]) => [input.replace(/^.*node_modules\//, ''), m.bytes, m.startup ? 'startup' : 'lazy']))}\n` +
      `${textTable(['package', 'bytes'], [...byPackage].sort((a, b) => b[1] - a[1]).map(([pkg, bytes]) => [pkg, bytes]))}\n`,
  );
}
