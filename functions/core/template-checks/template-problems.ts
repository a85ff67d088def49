/** One thing wrong with one template file, located well enough to fix it. */
export interface TemplateProblem {
  /** The file's name, e.g. `order-shipped.json`. */
  readonly file: string;
  /** Where in the file, e.g. `sms.text` or `fields.orderId`; empty for the file as a whole. */
  readonly path: string;
  readonly message: string;
}

/** `order-shipped.json sms.text: ...` */
export function formatTemplateProblem(problem: TemplateProblem): string {
  return `${problem.file}${problem.path ? ` ${problem.path}` : ''}: ${problem.message}`;
}

/**
 * The templates cannot be used: thrown at synth and at the sender's cold start, listing every
 * problem of every file at once, so one fix-and-retry round is enough.
 */
export class TemplateValidationError extends Error {
  override readonly name = 'TemplateValidationError';
  constructor(readonly problems: readonly TemplateProblem[]) {
    super(`${problems.length} template problem${problems.length === 1 ? '' : 's'}: ${problems.map(formatTemplateProblem).join('; ')}`);
  }
}
