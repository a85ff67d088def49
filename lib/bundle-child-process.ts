/**
 * One handler's esbuild build, run in a child Node.js process by `bundleNotifierHandler` (lib/function-bundle.ts):
 * CDK's local bundling is synchronous, and esbuild's synchronous API takes no plugins. It reads
 * `{ esbuild, options }` as JSON on stdin (the path of the esbuild to load and the build options), builds with
 * {@link NOTIFIER_BUNDLE_PLUGINS}, and exits 1 when the build fails, esbuild having printed the errors.
 *
 * Self-contained (only `node:` modules and esbuild, by path) and written in erasable TypeScript, so Node runs it
 * from `lib/` in a checkout (type stripping) as from `dist/lib/` in an installed package.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, Plugin } from 'esbuild';

/**
 * The AWS SDK clients' generated schema modules (`@aws-sdk/client-<name>/dist-es/schemas/schemas_<n>.js`).
 * Forward or back slashes: esbuild passes native paths to `onLoad`.
 */
export const SDK_SCHEMA_MODULE = /[\\/]@aws-sdk[\\/]client-[^\\/]+[\\/]dist-es[\\/]schemas[\\/]schemas_\d+\.js$/;

/**
 * A schema module with each trait key written as the string it names: `{ [_e]: _c }` becomes `{ "error": _c }`
 * where the module declares `const _e = "error";`. Same objects, same keys: a computed key that is a string
 * constant is that string.
 *
 * Why: esbuild keeps every statement whose object literal has a computed key (the key's `toString` could have
 * side effects), so the generated `{ [_e]: _c, [_hE]: 400 }` keeps every schema of a client in a bundle that sends
 * one command: about 48 KB of SES v2 schemas read at each sender cold start. Reported as aws/aws-sdk-js-v3#7607;
 * the fix in the code generator (smithy-lang/smithy-typescript#1889) does this very rewrite. A key whose name is
 * not such a constant is left as it is.
 */
export function literalSchemaTraitKeys(source: string): string {
  const strings = new Map<string, string>();
  for (const declaration of source.matchAll(/^const (_\w+) = ("(?:[^"\\\r\n]|\\.)*");$/gm)) {
    strings.set(declaration[1]!, declaration[2]!);
  }
  return source.replace(/\[(_\w+)\]:/g, (computed: string, name: string) => {
    const literal = strings.get(name);
    return literal === undefined ? computed : `${literal}:`;
  });
}

/** The esbuild plugin that applies {@link literalSchemaTraitKeys} to every {@link SDK_SCHEMA_MODULE}. */
export const sdkSchemaTraitKeysPlugin: Plugin = {
  name: 'notifier-sdk-schema-trait-keys',
  setup(build) {
    build.onLoad({ filter: SDK_SCHEMA_MODULE }, async ({ path }) => ({ contents: literalSchemaTraitKeys(await readFile(path, 'utf8')), loader: 'js' }));
  },
};

/** The namespace of the modules {@link lazyChunksReachEntryPlugin} puts in front of each `import()` target. */
const LAZY_ENTRY_NAMESPACE = 'notifier-lazy-entry';

/** Whether an ES module's source exports `default` (`export default`, or `as default` in an export list). */
export function exportsDefault(source: string): boolean {
  return /\bexport\s+default\b|\bas\s+default\b/.test(source);
}

/**
 * The module a bundled `import()` of `target` loads instead of `target`: it imports the build's entry, then
 * re-exports all of `target` (its `default` too when it has one). Same namespace, and nothing runs twice: by the time
 * the `import()` runs, the entry and everything it imports statically have been evaluated.
 */
export function lazyEntryModule({ entry, target, targetSource }: { readonly entry: string; readonly target: string; readonly targetSource: string }): string {
  const from = JSON.stringify(target);
  return `import ${JSON.stringify(entry)};\nexport * from ${from};\n${exportsDefault(targetSource) ? `export { default } from ${from};\n` : ''}`;
}

/**
 * Every module a handler loads through `import()` also imports the handler's entry, so that everything the entry
 * reaches is also reached from every `import()` target: esbuild then puts all of it in one chunk, and a cold start
 * reads `index.mjs` and that one chunk.
 *
 * Why: esbuild splits code by the set of entry points that reach it, and each `import()` target is an entry point.
 * With a handful of them (the SDK's credential providers, the sender's SNS and SQS modules) the entry's code was cut
 * into one chunk per combination: 14 files imported statically by the sender's `index.mjs`, each one more module for
 * Node.js to resolve, read, compile and link at every cold start (esbuild does not reuse an entry's chunk for the code
 * an `import()` target shares with it: evanw/esbuild#2299). What each `import()` loads later is unchanged, less the
 * code it already shares with the entry. Only a code-split build with one entry point is changed.
 */
export const lazyChunksReachEntryPlugin: Plugin = {
  name: 'notifier-lazy-chunks-reach-entry',
  setup(build) {
    // Without code splitting every `import()` target is in the one file already, and the extra import would only
    // wrap the entry's modules in lazy initialisers.
    if (build.initialOptions.splitting !== true) return;
    const entryPoints = build.initialOptions.entryPoints;
    const entries = entryPoints === undefined ? [] : Array.isArray(entryPoints) ? entryPoints : Object.values(entryPoints);
    const entry = entries.length === 1 ? entries[0] : undefined;
    const entryPath = typeof entry === 'string' ? entry : entry?.in;
    if (entryPath === undefined) return;
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind !== 'dynamic-import' || args.pluginData === LAZY_ENTRY_NAMESPACE) return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: LAZY_ENTRY_NAMESPACE });
      if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== 'file') return undefined;
      return { path: resolved.path, namespace: LAZY_ENTRY_NAMESPACE };
    });
    build.onLoad({ filter: /.*/, namespace: LAZY_ENTRY_NAMESPACE }, async ({ path }) => ({
      contents: lazyEntryModule({ entry: entryPath, target: path, targetSource: await readFile(path, 'utf8') }),
      loader: 'js',
      resolveDir: dirname(path),
    }));
  },
};

/** The plugins every handler is built with, by synth and by the bench alike. */
export const NOTIFIER_BUNDLE_PLUGINS: readonly Plugin[] = [sdkSchemaTraitKeysPlugin, lazyChunksReachEntryPlugin];

/** What the parent writes on stdin. */
export interface BundleChildInput {
  /** Absolute path of the esbuild module to load (the one the construct resolved). */
  readonly esbuild: string;
  readonly options: BuildOptions;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(): Promise<void> {
  const input = JSON.parse(await readStdin()) as BundleChildInput;
  const esbuild = createRequire(import.meta.url)(input.esbuild) as typeof import('esbuild');
  try {
    await esbuild.build({ ...input.options, plugins: [...NOTIFIER_BUNDLE_PLUGINS] });
  } catch {
    // esbuild printed its errors (logLevel) before rejecting.
    process.exitCode = 1;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
