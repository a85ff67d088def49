import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TemplateFile } from '../core/templates/template-definition';
import { buildTemplateRegistry, TEMPLATE_FILE_SUFFIX } from '../core/template-checks/template-registry';
import type { TemplateRegistry } from '../core/templates/templates';
import { PACKAGE_ROOT } from './package-root';

/**
 * The `templates/` folder of this package, found from the package root: compiled code runs from `dist/`,
 * where a path relative to its own file would miss it.
 */
export const DEFAULT_TEMPLATES_DIR = join(PACKAGE_ROOT, 'templates');

/**
 * Every `*.json` file directly in `dir` (the templates), and in each folder directly in it (a template's
 * translations, named `<folder>/<file>`), sorted by name; other files, such as a README, are left alone.
 * @throws the file system's error when `dir` cannot be read.
 */
export function readTemplateFiles(dir: string): TemplateFile[] {
  const names: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith(TEMPLATE_FILE_SUFFIX)) names.push(entry.name);
    if (!entry.isDirectory()) continue;
    for (const inner of readdirSync(join(dir, entry.name), { withFileTypes: true })) {
      if (inner.isFile() && inner.name.endsWith(TEMPLATE_FILE_SUFFIX)) names.push(`${entry.name}/${inner.name}`);
    }
  }
  return names.sort().map((name) => ({ name, text: readFileSync(join(dir, ...name.split('/')), 'utf8') }));
}

/**
 * The validated templates of `dir`: what the local runner, the CLI and the tests use, and what
 * synth embeds in the sender's bundle.
 * @throws TemplateValidationError listing every problem of every file.
 */
export function loadTemplateDirectory(dir: string = DEFAULT_TEMPLATES_DIR): TemplateRegistry {
  return buildTemplateRegistry(readTemplateFiles(dir));
}

let repository: TemplateRegistry | undefined;

/** The repository's own templates, read and validated once per process (local tools, benches and tests). */
export function repositoryTemplates(): TemplateRegistry {
  repository ??= loadTemplateDirectory(DEFAULT_TEMPLATES_DIR);
  return repository;
}
