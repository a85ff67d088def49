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
import { dirname, join } from 'node:path';
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

/** An AWS SDK module as published for bundlers (`dist-es` of `@aws-sdk/*` and `@smithy/*`): ES modules as tsc writes them. */
export const SDK_ES_MODULE = /[\\/]node_modules[\\/]@(?:aws-sdk|smithy)[\\/].+[\\/]dist-es[\\/].+\.js$/;

/** A file of an AWS SDK package: the package's folder, and the file's path in it. */
const SDK_PACKAGE_FILE = /^(.*[\\/]node_modules[\\/]@(?:aws-sdk|smithy)[\\/][^\\/]+)[\\/](.+)$/;

/** One `import { ... } from "x";` or `export { ... } from "x";` statement, as tsc writes them (one or several lines). */
const NAMED_FROM = /^(import|export) \{([^}]*)\} from "([^"]+)";$/gm;

/** A named binding of an import or export list: `a`, or `a as b`. */
interface Binding {
  readonly imported: string;
  readonly local: string;
}

function bindingsOf(list: string): Binding[] {
  return list
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0)
    .map((item) => {
      const [imported = item, local = imported] = item.split(/\s+as\s+/);
      return { imported, local };
    });
}

/** Exported name to the specifier and the name a module re-exports it as (`export { a, b as c } from "./x";`). */
export type ModuleReexports = ReadonlyMap<string, { readonly from: string; readonly name: string }>;

/** What `source`, an SDK module as tsc writes it, re-exports by name (a barrel re-exports and does nothing else). */
export function reexportsOf(source: string): ModuleReexports {
  const names = new Map<string, { from: string; name: string }>();
  for (const [, keyword, list, from] of source.matchAll(NAMED_FROM)) {
    if (keyword !== 'export') continue;
    for (const { imported, local } of bindingsOf(list!)) names.set(local, { from: from!, name: imported });
  }
  return names;
}

/**
 * Whether the package that holds `path` says, in its package.json's `sideEffects`, that the module has none: a module
 * nothing uses may then be left unevaluated (what esbuild itself does with such a module).
 */
export function declaredSideEffectFree(sideEffects: unknown, pathInPackage: string): boolean {
  if (sideEffects === false) return true;
  if (!Array.isArray(sideEffects)) return false;
  const path = pathInPackage.replace(/\\/g, '/');
  const name = path.slice(path.lastIndexOf('/') + 1);
  // As bundlers read the list: an entry with no slash names a file at any depth, any other is relative to the package.
  const names = (entry: string) => (entry.includes('/') ? entry.replace(/^\.\//, '') === path : entry === name);
  return sideEffects.every((entry) => typeof entry === 'string' && !/[*?{[]/.test(entry) && !names(entry));
}

/** Finds where a name a module imports is defined: the file and the name it has there. */
export type DefinitionFinder = (from: string, name: string, importer: string) => Promise<{ readonly path: string; readonly name: string } | undefined>;

/**
 * `source` with each named import and re-export of a barrel written as an import from the module that defines the
 * name (`import { a } from "@smithy/core/protocols";` becomes `import { a } from "/.../HttpProtocol.js";`). A
 * statement with a name `find` cannot place is left as it is.
 */
export async function withoutBarrels(source: string, importer: string, find: DefinitionFinder): Promise<string> {
  const replacements = new Map<string, string>();
  for (const [statement, keyword, list, from] of source.matchAll(NAMED_FROM)) {
    const byPath = new Map<string, string[]>();
    let placed = true;
    for (const { imported, local } of bindingsOf(list!)) {
      const definition = await find(from!, imported, importer);
      if (definition === undefined) {
        placed = false;
        break;
      }
      const bindings = byPath.get(definition.path) ?? [];
      bindings.push(definition.name === local ? local : `${definition.name} as ${local}`);
      byPath.set(definition.path, bindings);
    }
    if (!placed || byPath.size === 0) continue;
    replacements.set(statement, [...byPath].map(([path, bindings]) => `${keyword} { ${bindings.join(', ')} } from ${JSON.stringify(path)};`).join('\n'));
  }
  return replacements.size === 0 ? source : source.replace(NAMED_FROM, (statement: string) => replacements.get(statement) ?? statement);
}

/**
 * The esbuild plugin for the AWS SDK's modules: {@link literalSchemaTraitKeys} on every {@link SDK_SCHEMA_MODULE},
 * and every module's named imports from a barrel (`@smithy/core/protocols`, `@aws-sdk/core/client`, ...) taken from
 * the module that defines each name ({@link withoutBarrels}).
 *
 * Why the second: esbuild assigns code to chunks file by file, following every import of a file, used or not
 * (evanw/esbuild#2869). Through the barrels, the handler's entry reached every protocol the SDK has, and whatever an
 * `import()` target uses of them (SNS's query protocol and XML parser, the checksums, the SSO token files) was put in
 * the chunk a cold start reads: 17 KB for the sender, 36 KB for the reclaimer, each function reading code that only
 * its first text, resend or dead letter runs. Names are resolved as esbuild resolves them. A barrel is a module made
 * only of `export { ... } from` statements. A module is passed by only where its package declares its modules free of
 * side effects (`sideEffects` in package.json: `@smithy/*`, and `@aws-sdk/core` but for the one module it names, are),
 * as esbuild would then leave out an unused one itself; `@aws-sdk/lib-dynamodb` declares nothing and is left as it is.
 */
export const sdkModulesPlugin: Plugin = {
  name: 'notifier-sdk-modules',
  setup(build) {
    const packages = new Map<string, Promise<unknown>>();
    const sideEffectsOf = (root: string) => {
      let sideEffects = packages.get(root);
      if (sideEffects === undefined) {
        sideEffects = readFile(join(root, 'package.json'), 'utf8').then((text) => (JSON.parse(text) as { sideEffects?: unknown }).sideEffects, () => undefined);
        packages.set(root, sideEffects);
      }
      return sideEffects;
    };
    const modules = new Map<string, Promise<ModuleReexports>>();
    // The names a module's importers may take from where they are defined, only where its package declares its modules
    // free of side effects: taking a name past a module skips evaluating that module, and, for a barrel, the other
    // modules it re-exports, which esbuild would otherwise keep.
    const redirectsOf = (path: string) => {
      let redirects = modules.get(path);
      if (redirects === undefined) {
        redirects = (async () => {
          const inPackage = SDK_PACKAGE_FILE.exec(path);
          const free = inPackage !== null && declaredSideEffectFree(await sideEffectsOf(inPackage[1]!), inPackage[2]!);
          return free ? reexportsOf(await readFile(path, 'utf8')) : new Map();
        })();
        modules.set(path, redirects);
      }
      return redirects;
    };
    const resolved = new Map<string, Promise<string | undefined>>();
    const resolve = (from: string, importer: string) => {
      const key = `${dirname(importer)}\0${from}`;
      let path = resolved.get(key);
      if (path === undefined) {
        path = build
          .resolve(from, { kind: 'import-statement', importer, resolveDir: dirname(importer) })
          .then((result) => (result.errors.length > 0 || result.external || result.namespace !== 'file' ? undefined : result.path));
        resolved.set(key, path);
      }
      return path;
    };
    const find: DefinitionFinder = async (from, name, importer) => {
      const path = await resolve(from, importer);
      if (path === undefined || !SDK_ES_MODULE.test(path)) return undefined;
      const reexport = (await redirectsOf(path)).get(name);
      if (reexport === undefined) return { path, name };
      return (await find(reexport.from, reexport.name, path)) ?? { path, name };
    };
    build.onLoad({ filter: SDK_ES_MODULE, namespace: 'file' }, async ({ path }) => {
      const source = await readFile(path, 'utf8');
      return { contents: await withoutBarrels(SDK_SCHEMA_MODULE.test(path) ? literalSchemaTraitKeys(source) : source, path, find), loader: 'js' };
    });
  },
};

/** The namespace of the modules {@link lazyChunksReachEntryPlugin} puts in front of each `import()` target. */
const LAZY_ENTRY_NAMESPACE = 'notifier-lazy-entry';

/** Whether an ES module's source exports `default` (`export default`, or `as default` in an export list). */
export function exportsDefault(source: string): boolean {
  if (/\bexport\s+default\b/.test(source)) return true;
  // `export { x as default }`, `export { default } from "./y"`, `export { default, y } from "./y"`.
  return [...source.matchAll(/\bexport\s*\{([^}]*)\}/g)].some(([, list]) => bindingsOf(list ?? '').some(({ local }) => local === 'default'));
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
export const NOTIFIER_BUNDLE_PLUGINS: readonly Plugin[] = [sdkModulesPlugin, lazyChunksReachEntryPlugin];

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
