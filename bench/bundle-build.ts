import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as esbuild from 'esbuild';
import { DEFAULT_ENTRIES, NOTIFIER_BUNDLING } from '../lib/notifier-function';
import { DEFAULT_TEMPLATES_DIR, writeTemplatesModule } from '../lib/notifier-templates';

const REPO = resolve(import.meta.dirname, '..');

/** The AWS SDK, left out of the "own code and non-AWS dependencies" count (issue 11). */
export const SDK_PACKAGES = ['@aws-sdk/*', '@smithy/*'] as const;

/**
 * esbuild's options for the flags `aws-lambda-nodejs` passes for {@link NOTIFIER_BUNDLING} (its
 * `Bundling.buildArgs`), so the bench measures the bytes the stack deploys; test/deploy checks that
 * this build and the synthesized asset are the same bytes.
 */
export function deployedBuildOptions(entry: string): esbuild.BuildOptions & { metafile: true; write: false } {
  const b = NOTIFIER_BUNDLING;
  return {
    entryPoints: [resolve(REPO, entry)],
    absWorkingDir: REPO,
    bundle: true,
    platform: 'node',
    target: b.target,
    format: b.format === OutputFormat.ESM ? 'esm' : 'cjs',
    minify: b.minify,
    keepNames: b.keepNames,
    sourcemap: b.sourceMap,
    mainFields: [...b.mainFields],
    banner: { js: b.banner },
    external: [...b.externalModules],
    // The sender's bundle embeds the templates as synth embeds them (lib/notifier-templates.ts).
    ...(resolve(REPO, entry) === DEFAULT_ENTRIES.sender ? { inject: [writeTemplatesModule(DEFAULT_TEMPLATES_DIR, tmpdir())] } : {}),
    metafile: true,
    write: false,
    logLevel: 'silent',
  };
}

/** One esbuild output: its bytes and the minified bytes esbuild attributes to each package. */
export interface BuiltBundle {
  readonly contents: Uint8Array;
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Package name (or `(this repository)`) to minified bytes, largest first. */
  readonly packages: ReadonlyArray<{ readonly name: string; readonly bytes: number }>;
  /** Every source file with bytes in the output, as esbuild names it (relative to the repository). */
  readonly inputs: readonly string[];
}

/** Bundles `entry` as the stack does; `withoutSdk` leaves the AWS SDK and smithy out (external). */
export async function buildBundle(entry: string, { withoutSdk }: { readonly withoutSdk: boolean }): Promise<BuiltBundle> {
  const options = deployedBuildOptions(entry);
  const build = await esbuild.build({ ...options, external: [...(options.external ?? []), ...(withoutSdk ? SDK_PACKAGES : [])] });
  const output = build.outputFiles[0];
  if (!output) throw new Error(`esbuild produced nothing for ${entry}`);
  const byPackage = new Map<string, number>();
  const inputs: string[] = [];
  for (const out of Object.values(build.metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(out.inputs)) {
      if (bytesInOutput > 0) inputs.push(input);
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? '(this repository)';
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput);
    }
  }
  return {
    contents: output.contents,
    bytes: output.contents.byteLength,
    gzipBytes: gzipSync(output.contents).byteLength,
    packages: [...byPackage.entries()].sort((a, b) => b[1] - a[1]).map(([name, bytes]) => ({ name, bytes })),
    inputs,
  };
}
