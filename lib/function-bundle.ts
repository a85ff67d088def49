import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { extname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, type BundlingOptions, DockerImage, type ILocalBundling } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { BuildOptions } from 'esbuild';
import { PACKAGE_ROOT } from '../functions/adapters/package-root';
import type { BundleChildInput } from './bundle-child-process';
import { DEFAULT_NOTIFIER_RUNTIME, esbuildTargetOf, type NotifierRuntime } from './lambda-runtime';

/**
 * How every notifier handler is bundled: esbuild, run in-process at synth (no Docker).
 *
 * - The AWS SDK clients are bundled (no external `@aws-sdk/*`): the code runs with the SDK versions in
 *   package-lock.json, the ones the tests run, not with whatever SDK the Lambda runtime preinstalls,
 *   mixed with the bundled `@smithy/node-http-handler` (its `throwOnRequestTimeout` exists only there).
 *   Minified and tree-shaken from the ESM builds (`module` first).
 * - Split into chunks (ESM code splitting): whatever a handler reaches only through `import()` is a file
 *   of its own that a cold start neither reads nor compiles. In Lambda that is most of the SDK's
 *   credential chain (SSO, shared INI files, STS web identity, the login and process providers: the
 *   runtime's credentials come from the environment), the SQS client of the sender until its first dead
 *   letter or back-off, its SNS and End User Messaging clients until its first text or push, and SES and SNS in
 *   the reclaimer until its first resend. `index.mjs` imports one chunk, with all the code a cold start needs
 *   (lib/bundle-child-process.ts: each `import()` target also imports the entry, or esbuild cuts that code into a
 *   chunk per set of targets that share it). The cold import CPU measured by `npm run bench` fell by about a quarter.
 * - No source maps: Lambda only applies them with `NODE_OPTIONS=--enable-source-maps`, which makes every
 *   `error.stack` access map through a ~2 MB map; the ledger's conditional writes fail by design on every
 *   duplicate, and the handlers log error names and messages, not stacks. `keepNames` keeps function
 *   and class names readable in the stacks that are printed.
 * - The esbuild target is the function's runtime (lib/lambda-runtime.ts: `node24` by default).
 * - The AWS SDK schemas' trait keys are written as strings ({@link bundleNotifierHandler}), so esbuild leaves out the
 *   schemas of the commands a handler never sends, and the SDK's modules import each name from the module that
 *   defines it rather than from a barrel, so what only an `import()` target uses is not read at a cold start.
 */
export const NOTIFIER_BUNDLING = {
  format: 'esm',
  minify: true,
  keepNames: true,
  sourcemap: false,
  splitting: true,
  mainFields: ['module', 'main'],
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  external: [],
} as const;

/** The file Lambda loads (handler `index.handler`); every other file of the asset is a chunk it imports. */
export const HANDLER_FILE = 'index.mjs';

/** What one handler's bundle is built with besides {@link NOTIFIER_BUNDLING}. */
export interface NotifierBuild {
  /**
   * Identifiers esbuild replaces (the sender's embedded templates, lib/notifier-templates.ts).
   * @default - none
   */
  readonly define?: Readonly<Record<string, string>>;
  /**
   * The Lambda runtime the bundle runs on: its Node.js is esbuild's target.
   * @default 'nodejs24.x'
   */
  readonly runtime?: NotifierRuntime;
}

/**
 * esbuild's options for bundling `entry` into `outdir` as the stack deploys it. The bench and the
 * deploy tests build with these very options, so they measure the bytes that are deployed.
 */
export function notifierBuildOptions(entry: string, outdir: string, build: NotifierBuild = {}): BuildOptions {
  const b = NOTIFIER_BUNDLING;
  return {
    entryPoints: { index: resolve(entry) },
    absWorkingDir: PACKAGE_ROOT,
    bundle: true,
    platform: 'node',
    target: esbuildTargetOf(build.runtime ?? DEFAULT_NOTIFIER_RUNTIME),
    format: b.format,
    minify: b.minify,
    keepNames: b.keepNames,
    sourcemap: b.sourcemap,
    splitting: b.splitting,
    mainFields: [...b.mainFields],
    banner: { js: b.banner },
    external: [...b.external],
    outdir,
    entryNames: '[name]',
    outExtension: { '.js': '.mjs' },
    define: { ...build.define },
    logLevel: 'warning',
  };
}

/**
 * Bundles `entry` into `outdir`, synchronously (CDK's local bundling is synchronous): esbuild runs in a child
 * Node.js process (lib/bundle-child-process.ts), because the build needs a plugin and esbuild's synchronous API
 * takes none. The plugins (lib/bundle-child-process.ts `NOTIFIER_BUNDLE_PLUGINS`) write the AWS SDK schemas' trait
 * keys as plain strings, so the schemas a handler never uses are left out (about 48 KB of SES v2 schemas less at each
 * sender cold start), take the SDK's imports past its barrels, and put all the code a cold start needs in one chunk.
 * @throws Error when esbuild cannot be found or the build fails (esbuild prints each error).
 */
export function bundleNotifierHandler(entry: string, outdir: string, build: NotifierBuild = {}): void {
  const input: BundleChildInput = { esbuild: resolveEsbuild(), options: notifierBuildOptions(entry, outdir, build) };
  if (BUNDLE_CHILD_PROCESS.endsWith('.ts') && !(process.features as { typescript?: unknown }).typescript) {
    throw new Error(`bundling from a checkout runs ${BUNDLE_CHILD_PROCESS} with Node.js ${process.version}, which cannot strip TypeScript types: run it with the Node.js 24 of the \`node\` devDependency (npm scripts and npx do)`);
  }
  const child = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', BUNDLE_CHILD_PROCESS], {
    input: JSON.stringify(input),
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  if (child.error) throw new Error(`could not start Node.js to bundle ${relative(PACKAGE_ROOT, entry)}: ${child.error.message}`, { cause: child.error });
  if (child.status !== 0) {
    throw new Error(`esbuild could not bundle ${relative(PACKAGE_ROOT, entry)} (exit ${child.status ?? child.signal}): its errors are printed above`);
  }
}

/** lib/bundle-child-process.ts beside this file: `.ts` in a checkout (Node strips the types), `.js` when compiled. */
const BUNDLE_CHILD_PROCESS = fileURLToPath(new URL(`./bundle-child-process${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/**
 * The path of esbuild's module, resolved only when a stack is bundled: an app that skips bundling (unit tests of its
 * stacks) needs none.
 * @param resolve resolves a package from this module's folder.
 * @default resolve - Node's `require.resolve` from this file
 */
export function resolveEsbuild(resolve: (name: string) => string = createRequire(import.meta.url).resolve): string {
  try {
    return resolve('esbuild');
  } catch (error) {
    throw new Error(
      'IdempotentNotifier bundles its Lambda handlers with esbuild at synth, and esbuild is not installed: add it to your app (npm install --save-dev esbuild)',
      { cause: error },
    );
  }
}

/** CDK bundling options that build one handler locally with {@link bundleNotifierHandler}. */
class NotifierHandlerBundling implements BundlingOptions {
  /** Never pulled or run: the local build always succeeds or throws (the pattern `NodejsFunction` uses). */
  public readonly image = DockerImage.fromRegistry('dummy');
  /**
   * Never run either; CDK keys its per-process asset cache on these options' JSON, so naming the entry, a hash
   * of what is defined (the templates) and the build settings here gives each handler an asset of its own.
   */
  public readonly command: string[];
  public readonly local: ILocalBundling;

  public constructor(entry: string, build: Required<NotifierBuild>) {
    const defined = createHash('sha256').update(JSON.stringify(build.define)).digest('hex');
    this.command = [
      'esbuild',
      relative(PACKAGE_ROOT, entry),
      `--define-sha256=${defined}`,
      `--target=${esbuildTargetOf(build.runtime)}`,
      JSON.stringify(NOTIFIER_BUNDLING),
    ];
    this.local = {
      tryBundle: (outputDir: string) => {
        bundleNotifierHandler(entry, outputDir, build);
        return true;
      },
    };
  }
}

/** The Lambda code of one notifier handler: `entry` bundled at synth into an asset hashed by its output. */
export function notifierHandlerCode(entry: string, build: NotifierBuild = {}): lambda.Code {
  return lambda.Code.fromAsset(PACKAGE_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: new NotifierHandlerBundling(entry, { define: build.define ?? {}, runtime: build.runtime ?? DEFAULT_NOTIFIER_RUNTIME }),
  });
}
