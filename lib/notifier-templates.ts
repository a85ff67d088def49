import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Stage } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { readTemplateFiles } from '../functions/adapters/template-directory';
import { checkTemplateFiles } from '../functions/core/template-registry';
import { formatTemplateProblem } from '../functions/core/template-problems';
import { SHIPPED_TEMPLATES_IDENTIFIER } from '../functions/sender/shipped-templates';
import { PACKAGE_ROOT } from './package-root';

/**
 * The `templates/` folder of this package, found from the package root: the compiled construct runs from
 * `dist/lib/`, where a path relative to its own file would miss it.
 */
export const DEFAULT_TEMPLATES_DIR = join(PACKAGE_ROOT, 'templates');

/** What embedding the templates adds to the sender's bundling options. */
export interface TemplateBundling {
  /** esbuild `inject`: a module exporting the template files under the identifier the sender reads. */
  readonly inject: string[];
}

/**
 * Validates the templates folder at synth and prepares it for the sender's bundle.
 *
 * The files are embedded in the bundle itself rather than copied beside it: esbuild's `inject` replaces
 * the sender's `__NOTIFIER_TEMPLATES__` with a generated module holding every file's text, so the asset
 * stays one `index.mjs`, its hash changes with any template, no shell step runs (a `commandHooks` copy
 * would), and there is no command-line size limit (a `define` would pass the text as one argument).
 * The module is written to the cloud assembly folder, named by its content's hash.
 *
 * @throws Error listing every problem of every file, so synth stops before a bad template is deployed.
 */
export function templateBundling(scope: Construct, templatesDir: string): TemplateBundling {
  const outdir = Stage.of(scope)?.outdir;
  if (!outdir) throw new Error('IdempotentNotifier: the templates can only be embedded inside a CDK App or Stage');
  return { inject: [writeTemplatesModule(templatesDir, outdir)] };
}

/**
 * Validates `templatesDir` and writes the module that embeds it into `outdir`, named by its content's hash
 * (so writing it again is harmless); returns its path. The bench bundles the sender with it too.
 * @throws Error listing every problem of every file.
 */
export function writeTemplatesModule(templatesDir: string, outdir: string): string {
  const dir = resolve(templatesDir);
  if (!existsSync(dir)) throw new Error(`IdempotentNotifier: templatesDir ${dir} does not exist`);
  const files = readTemplateFiles(dir);
  const { problems } = checkTemplateFiles(files);
  if (problems.length > 0) {
    throw new Error(`IdempotentNotifier: the templates in ${dir} are invalid:\n${problems.map((p) => `  - ${formatTemplateProblem(p)}`).join('\n')}`);
  }
  const module = `export const ${SHIPPED_TEMPLATES_IDENTIFIER} = ${JSON.stringify(files)};\n`;
  const hash = createHash('sha256').update(module).digest('hex').slice(0, 16);
  mkdirSync(outdir, { recursive: true });
  // Absolute: esbuild runs in the package's folder, and the CDK CLI passes a relative outdir (cdk.out).
  const file = resolve(outdir, `notifier-templates.${hash}.mjs`);
  writeFileSync(file, module);
  return file;
}
