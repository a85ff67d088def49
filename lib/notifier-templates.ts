import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { readTemplateFiles } from '../functions/adapters/template-directory';
import { checkTemplateFiles } from '../functions/core/template-checks/template-registry';
import { smsEncodingNotes } from '../functions/core/template-checks/template-notes';
import { formatTemplateProblem } from '../functions/core/template-checks/template-problems';
import { SHIPPED_TEMPLATES_IDENTIFIER, shippedTemplatesOf } from '../functions/sender/shipped-templates';

export { DEFAULT_TEMPLATES_DIR } from '../functions/adapters/template-directory';

/** What embedding the templates adds to the sender's bundling options. */
export interface TemplateBundling {
  /** esbuild `define`: the sender's free identifier `__NOTIFIER_TEMPLATES__` replaced by the checked templates (shipped-templates.ts). */
  readonly define: Readonly<Record<string, string>>;
  /**
   * What the templates cost that is not a problem, for synth to say (an info annotation on the sender): each
   * translation whose SMS needs UCS-2 where its default's is GSM-7 (template-notes.ts).
   */
  readonly notes: readonly string[];
}

/**
 * Validates the templates folder at synth and prepares it for the sender's bundle.
 *
 * The templates are embedded in the bundle itself rather than copied beside it: esbuild's `define` replaces
 * the sender's `__NOTIFIER_TEMPLATES__` with the templates as checked here, so the asset's
 * hash changes with any template and with nothing else (no generated file, so no path of one that would
 * name the chunks differently from one folder to the next), and no shell step runs (a `commandHooks`
 * copy would). esbuild runs in-process (lib/function-bundle.ts), so no command line carries the text.
 *
 * @throws Error listing every problem of every file, so synth stops before a bad template is deployed.
 */
/** A JSON.stringify replacer that leaves out every `description` (the schemas allow one on a template, a translation and a field, nowhere else). */
function withoutDescriptions(this: unknown, key: string, value: unknown): unknown {
  return key === 'description' && typeof value === 'string' ? undefined : value;
}

export function templateBundling(templatesDir: string): TemplateBundling {
  const dir = resolve(templatesDir);
  if (!existsSync(dir)) throw new Error(`IdempotentNotifier: templatesDir ${dir} does not exist`);
  const files = readTemplateFiles(dir);
  const { problems, templates } = checkTemplateFiles(files);
  if (problems.length > 0) {
    throw new Error(`IdempotentNotifier: the templates in ${dir} are invalid:\n${problems.map((p) => `  - ${formatTemplateProblem(p)}`).join('\n')}`);
  }
  // The templates as checked (defaults applied), so the sender reads them without checking them again; without their
  // descriptions (the template's and each field's), which are for people: ~470 bytes of the shipped ones.
  const shipped = shippedTemplatesOf(templates.map((checked) => checked.template));
  return { define: { [SHIPPED_TEMPLATES_IDENTIFIER]: JSON.stringify(shipped, withoutDescriptions) }, notes: smsEncodingNotes(templates) };
}
