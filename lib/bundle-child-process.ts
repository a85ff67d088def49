/**
 * One handler's esbuild build, run in a child Node.js process by `bundleNotifierHandler` (lib/function-bundle.ts):
 * CDK's local bundling is synchronous, and esbuild's synchronous API takes no plugins. It reads
 * `{ esbuild, options }` as JSON on stdin (the path of the esbuild to load and the build options), builds with
 * {@link sdkSchemaTraitKeysPlugin}, and exits 1 when the build fails, esbuild having printed the errors.
 *
 * Self-contained (only `node:` modules and esbuild, by path) and written in erasable TypeScript, so Node runs it
 * from `lib/` in a checkout (type stripping) as from `dist/lib/` in an installed package.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
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
    await esbuild.build({ ...input.options, plugins: [sdkSchemaTraitKeysPlugin] });
  } catch {
    // esbuild printed its errors (logLevel) before rejecting.
    process.exitCode = 1;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
