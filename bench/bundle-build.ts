import { tmpdir } from 'node:os';
import { basename, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { NOTIFIER_BUNDLE_PLUGINS } from '../lib/bundle-child-process';
import { HANDLER_FILE, notifierBuildOptions } from '../lib/function-bundle';
import { smsCountriesDefine, smsProviderDefine } from '../lib/destination-options';
import type { NotifierRuntime } from '../lib/lambda-runtime';
import { DEFAULT_ENTRIES } from '../lib/notifier-function';
import { DEFAULT_TEMPLATES_DIR, templateBundling } from '../lib/notifier-templates';

const REPO = resolve(import.meta.dirname, '..');

/** The AWS SDK, left out of the "own code and non-AWS dependencies" count (issue 11). */
export const SDK_PACKAGES = ['@aws-sdk/*', '@smithy/*'] as const;

/** esbuild writes nothing here (`write: false`): it only names the files, flat, as in the asset folder. */
const VIRTUAL_OUTDIR = resolve(tmpdir(), 'notifier-bench-asset');

let shippedTemplates: Readonly<Record<string, string>> | undefined;
/** The shipped templates as synth embeds them, read and validated once per process. */
function shippedTemplatesDefine(): Readonly<Record<string, string>> {
  shippedTemplates ??= templateBundling(DEFAULT_TEMPLATES_DIR).define;
  return shippedTemplates;
}

/**
 * The stack's build of `entry` (lib/function-bundle.ts), in memory; the sender's with the shipped templates
 * embedded as synth embeds them, with the plugins synth builds with (lib/bundle-child-process.ts). test/deploy checks
 * that these are the bytes `cdk synth` puts in the asset.
 */
export function deployedBuildOptions(
  entry: string,
  {
    smsCountries = [],
    runtime,
    smsProvider,
  }: { readonly smsCountries?: readonly string[]; readonly runtime?: NotifierRuntime; readonly smsProvider?: 'sns' | 'end-user-messaging' } = {},
): esbuild.BuildOptions & { metafile: true; write: false } {
  const path = resolve(REPO, entry);
  // The sender and the reclaimer carry the SMS country table (none by default: cdk.json lists no countries).
  const sms = path === DEFAULT_ENTRIES.sender || path === DEFAULT_ENTRIES.reclaimer ? { ...smsCountriesDefine({ smsCountries: smsCountries }), ...smsProviderDefine({ smsProvider }) } : {};
  const define = { ...sms, ...(path === DEFAULT_ENTRIES.sender ? shippedTemplatesDefine() : {}) };
  return { ...notifierBuildOptions(resolve(REPO, entry), VIRTUAL_OUTDIR, { define, runtime }), metafile: true, write: false, logLevel: 'silent', plugins: [...NOTIFIER_BUNDLE_PLUGINS] };
}

/** One file of an asset, named as in the asset folder. */
export interface BundleFile {
  readonly name: string;
  readonly contents: Uint8Array;
}

/** One handler bundled as the stack bundles it: its files, their sizes, and the bytes esbuild attributes to each package. */
export interface BuiltBundle {
  /** `index.mjs` first, then its chunks. */
  readonly files: readonly BundleFile[];
  /** All files. */
  readonly bytes: number;
  /** All files, each gzipped. */
  readonly gzipBytes: number;
  /** `index.mjs` and the chunks it imports statically: what a cold import reads and compiles. */
  readonly startupBytes: number;
  /** The names of `index.mjs` and the chunks it imports statically. */
  readonly startupFiles: readonly string[];
  /** Package name (or `(this repository)`) to minified bytes over all files, largest first. */
  readonly packages: ReadonlyArray<{ readonly name: string; readonly bytes: number }>;
  /** Every source file with bytes in the output, as esbuild names it (relative to the repository). */
  readonly inputs: readonly string[];
  /** The source files with bytes in what a cold start reads (`index.mjs` and its static chunks); the others load on first use. */
  readonly startupInputs: readonly string[];
}

/** How {@link buildBundle} departs from the stack's build. */
export interface BundleVariant {
  /** Leave the AWS SDK and smithy out (external): the count of own code and non-AWS dependencies. */
  readonly withoutSdk: boolean;
  /** Code splitting as the stack does it, or one file (the baseline as `NodejsFunction` bundles it). @default true */
  readonly splitting?: boolean;
  /** SMS countries embedded in the sender and the reclaimer. @default none, as cdk.json */
  readonly smsCountries?: readonly string[];
  /** The Lambda runtime built for. @default 'nodejs24.x', as the stack */
  readonly runtime?: NotifierRuntime;
  /** The SMS provider built for. @default 'sns', as the stack */
  readonly smsProvider?: 'sns' | 'end-user-messaging';
}

/** Bundles `entry` as the stack does, or as `variant` says. */
export async function buildBundle(entry: string, { withoutSdk, splitting = true, smsCountries, runtime, smsProvider }: BundleVariant): Promise<BuiltBundle> {
  const options = deployedBuildOptions(entry, { smsCountries, runtime, smsProvider });
  const build = await esbuild.build({ ...options, splitting, external: [...(options.external ?? []), ...(withoutSdk ? SDK_PACKAGES : [])] });
  const files = build.outputFiles
    .map((file) => ({ name: basename(file.path), contents: file.contents }))
    .sort((a, b) => Number(b.name === HANDLER_FILE) - Number(a.name === HANDLER_FILE) || a.name.localeCompare(b.name));
  if (files[0]?.name !== HANDLER_FILE) throw new Error(`esbuild produced no ${HANDLER_FILE} for ${entry}`);
  const byPackage = new Map<string, number>();
  const inputs = new Set<string>();
  const staticImports = new Map<string, string[]>();
  const inputsOf = new Map<string, string[]>();
  for (const [outputPath, output] of Object.entries(build.metafile.outputs)) {
    inputsOf.set(basename(outputPath), Object.entries(output.inputs).filter(([, { bytesInOutput }]) => bytesInOutput > 0).map(([input]) => input));
    staticImports.set(
      basename(outputPath),
      output.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => basename(i.path)),
    );
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      if (bytesInOutput > 0) inputs.add(input);
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? '(this repository)';
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput);
    }
  }
  const startup = new Set<string>();
  const visit = (name: string): void => {
    if (startup.has(name)) return;
    startup.add(name);
    for (const imported of staticImports.get(name) ?? []) visit(imported);
  };
  visit(HANDLER_FILE);
  const bytesOf = new Map(files.map((f) => [f.name, f.contents.byteLength]));
  const size = (names: Iterable<string>) => [...names].reduce((sum, name) => sum + (bytesOf.get(name) ?? 0), 0);
  return {
    files,
    bytes: size(bytesOf.keys()),
    gzipBytes: files.reduce((sum, f) => sum + gzipSync(f.contents).byteLength, 0),
    startupBytes: size(startup),
    startupFiles: [...startup],
    packages: [...byPackage.entries()].sort((a, b) => b[1] - a[1]).map(([name, bytes]) => ({ name, bytes })),
    inputs: [...inputs],
    startupInputs: [...new Set([...startup].flatMap((name) => inputsOf.get(name) ?? []))],
  };
}
