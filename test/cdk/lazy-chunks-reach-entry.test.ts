import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { deployedBuildOptions } from '../../bench/bundle-build';
import { exportsDefault, lazyChunksReachEntryPlugin, lazyEntryModule } from '../../lib/bundle-child-process';
import { DEFAULT_ENTRIES } from '../../lib/notifier-function';

type Name = keyof typeof DEFAULT_ENTRIES;

/** The export names of `path` as esbuild bundles it alone (ESM): what `import()` of it resolves to. */
async function exportNamesOf(path: string): Promise<string[]> {
  const built = await esbuild.build({ entryPoints: [path], bundle: true, format: 'esm', platform: 'node', write: false, metafile: true, logLevel: 'silent', outdir: tmpdir() });
  return Object.values(built.metafile.outputs).flatMap((output) => output.exports).sort();
}

describe("the bundling's one startup chunk (lib/bundle-child-process.ts lazyChunksReachEntryPlugin)", () => {
  it('reads a default export in either of the forms ES modules write it, and nothing else as one', () => {
    expect(exportsDefault('export default function parse() {}')).toBe(true);
    expect(exportsDefault('class Bowser {}\nexport { Bowser as default, getParser };')).toBe(true);
    expect(exportsDefault('export{a as default}')).toBe(true);
    expect(exportsDefault('export const defaults = 1;\nexport { defaultProvider };')).toBe(false);
    expect(exportsDefault('const x = { default: 1 }; export { x };')).toBe(false);
    expect(exportsDefault('export { default } from "./parser.js";'), 'a re-exported default').toBe(true);
    expect(exportsDefault('export { default as parse, other } from "./parser.js";'), 'a default re-exported under another name').toBe(false);
  });

  it("the module in front of an import() target imports the entry, then re-exports the target's names, its default only when it has one", () => {
    expect(lazyEntryModule({ entry: '/app/handler.ts', target: '/app/lazy.ts', targetSource: 'export const a = 1;' })).toBe(
      'import "/app/handler.ts";\nexport * from "/app/lazy.ts";\n',
    );
    expect(lazyEntryModule({ entry: '/app/handler.ts', target: '/m/bowser.mjs', targetSource: 'export { B as default };' })).toBe(
      'import "/app/handler.ts";\nexport * from "/m/bowser.mjs";\nexport { default } from "/m/bowser.mjs";\n',
    );
  });

  it('a code-split build then reads index.mjs and one chunk at a cold start; each import() still loads its own, evaluated once, with every name it exports', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lazy-entry-'));
    writeFileSync(join(dir, 'shared.mjs'), 'export const loads = (globalThis.__loads ?? 0) + 1; globalThis.__loads = loads; export const shared = () => "shared";');
    // Shared by the entry and one target each: esbuild alone makes a chunk of each, both imported by index.mjs.
    writeFileSync(join(dir, 'with-a.mjs'), 'export const withA = () => "A";');
    writeFileSync(join(dir, 'with-b.mjs'), 'export const withB = () => "B";');
    writeFileSync(join(dir, 'a.mjs'), 'import { shared } from "./shared.mjs"; import { withA } from "./with-a.mjs"; export const a = () => `a+${shared()}${withA()}`;');
    writeFileSync(join(dir, 'b.mjs'), 'import { shared } from "./shared.mjs"; import { withB } from "./with-b.mjs"; export default function b() { return `b+${shared()}${withB()}`; } export const named = 1;');
    writeFileSync(join(dir, 'c.mjs'), 'import { a } from "./a.mjs"; export const c = () => `c+${a()}`;');
    writeFileSync(
      join(dir, 'entry.mjs'),
      'import { shared } from "./shared.mjs"; import { withA } from "./with-a.mjs"; import { withB } from "./with-b.mjs"; export const handler = async () => { const [a, b, c] = await Promise.all([import("./a.mjs"), import("./b.mjs"), import("./c.mjs")]); return [shared() + withA() + withB(), a.a(), b.default(), b.named, c.c(), Object.keys(b).sort().join()]; };',
    );
    const build = (plugins: esbuild.Plugin[]) =>
      esbuild.build({ entryPoints: { index: join(dir, 'entry.mjs') }, bundle: true, splitting: true, format: 'esm', platform: 'node', outdir: join(dir, plugins.length > 0 ? 'with' : 'without'), outExtension: { '.js': '.mjs' }, metafile: true, logLevel: 'silent', plugins });
    const staticChunks = (built: esbuild.BuildResult<{ metafile: true }>) =>
      Object.entries(built.metafile.outputs).find(([path]) => basename(path) === 'index.mjs')?.[1].imports.filter((i) => i.kind === 'import-statement').length;
    const without = await build([]);
    const withPlugin = await build([lazyChunksReachEntryPlugin]);
    expect(staticChunks(without), 'esbuild alone: one chunk per set of entry points').toBeGreaterThan(1);
    expect(staticChunks(withPlugin)).toBe(1);
    const { handler } = (await import(pathToFileURL(join(dir, 'with', 'index.mjs')).href)) as { handler: () => Promise<unknown[]> };
    expect(await handler()).toEqual(['sharedAB', 'a+sharedA', 'b+sharedB', 1, 'c+a+sharedA', 'default,named']);
    expect((globalThis as { __loads?: number }).__loads, 'the shared module evaluated once').toBe(1);
  });

  it('leaves a build without code splitting as esbuild makes it', async () => {
    const options = deployedBuildOptions(DEFAULT_ENTRIES.status);
    const plain = { ...options, splitting: false, plugins: [] };
    const [without, withPlugin] = await Promise.all([esbuild.build(plain), esbuild.build({ ...plain, plugins: [lazyChunksReachEntryPlugin] })]);
    expect(withPlugin.outputFiles.map((f) => f.text)).toEqual(without.outputFiles.map((f) => f.text));
  });

  it.each(Object.keys(DEFAULT_ENTRIES) as Name[])('in the %s, every import() target keeps the names it exports', async (name) => {
    const built = await esbuild.build(deployedBuildOptions(DEFAULT_ENTRIES[name]));
    const lazyOutputs = Object.values(built.metafile.outputs).filter((output) => output.entryPoint?.startsWith('notifier-lazy-entry:'));
    expect(lazyOutputs.length).toBeGreaterThan(0);
    for (const output of lazyOutputs) {
      const target = output.entryPoint!.slice('notifier-lazy-entry:'.length);
      expect(output.exports.slice().sort(), target).toEqual(await exportNamesOf(target));
    }
  }, 60_000);
});
