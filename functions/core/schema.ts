/**
 * How the functions run a schema: valibot, through {@link validate}, whose problems name the field and
 * the rule it breaks but never the value.
 *
 * Why valibot: a valibot schema is a plain object, built in about 0.3 ms at a cold start; zod 4 (zod/mini
 * too) builds every schema through its `$constructor` machinery, which cost 9-11 ms of CPU at each
 * Lambda's cold import (`bench/bundles.ts`).
 *
 * Why our own messages: valibot's quote the value they refused (`Invalid email: Received "bob@example.com"`),
 * and a problem ends up in a dead letter's attributes and in logs while an event holds e-mail addresses
 * and phone numbers. {@link describeIssue} builds every message from what the schema expected (the issue's
 * kind, type and `expected`), never from the issue's `input` or `received`; the only other messages are
 * the constants our schemas give their own checks. valibot takes a message function per parse, so only
 * {@link validate} parses: nothing else in the functions or the CLI calls valibot's `safeParse` or `parse`
 * (`test/core/schema.test.ts` checks).
 */
import * as v from 'valibot';

/** One thing wrong with an input: where (`recipients.0.channels`, empty at the root) and what. */
export interface SchemaProblem {
  readonly path: string;
  readonly message: string;
}

/** A schema's output, or every problem found. */
export type Validated<T> =
  | { readonly success: true; readonly output: T }
  | { readonly success: false; readonly problems: readonly [SchemaProblem, ...SchemaProblem[]] };

const CONFIG: v.Config<v.BaseIssue<unknown>> = { message: describeIssue };

/** Runs `schema` on `input`; problems carry our messages only (see the module comment). */
export function validate<const TSchema extends v.GenericSchema>(schema: TSchema, input: unknown): Validated<v.InferOutput<TSchema>> {
  const result = v.safeParse(schema, input, CONFIG);
  if (result.success) return { success: true, output: result.output };
  const [first, ...rest] = result.issues;
  return { success: false, problems: [toProblem(first), ...rest.map(toProblem)] };
}

/** Problems as one line each, `path: message` (`(root)` for the input itself), joined by `; `. */
export function describeProblems(problems: readonly SchemaProblem[], limit = problems.length): string {
  return problems
    .slice(0, limit)
    .map((problem) => `${problem.path || '(root)'}: ${problem.message}`)
    .join('; ');
}

function toProblem(issue: v.BaseIssue<unknown>): SchemaProblem {
  return { path: issue.path?.map((item) => pathKey(String(item.key))).join('.') ?? '', message: issue.message };
}

/** A key of the input as a path names it: one that is not well-formed Unicode in JSON's escapes, so that a problem always is. */
function pathKey(key: string): string {
  return key.isWellFormed() ? key : JSON.stringify(key).slice(1, -1);
}

/**
 * The message of an issue whose check has none of its own, worded after zod's English messages.
 * Reads only what the schema expected: an issue's `input` and `received` are what was refused.
 */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  const expected = issue.expected;
  switch (issue.type) {
    case 'object':
    case 'strict_object':
    case 'record':
      // An object's own issues: a key it does not know (expected "never"), a key it needs (expected
      // that key's name), or not an object at all (expected "Object").
      if (expected === 'never') return 'Unrecognized key';
      if (expected !== 'Object') return 'Required';
      return 'Invalid input: expected object';
    case 'array':
      return 'Invalid input: expected array';
    case 'picklist':
      return `Invalid option: expected one of ${alternatives(expected)}`;
    case 'union':
      return `Invalid input: expected ${alternatives(expected)}`;
    case 'min_length':
      return `Too small: expected length to be ${expected}`;
    case 'max_length':
      return `Too big: expected length to be ${expected}`;
    case 'min_value':
    case 'gt_value':
      return `Too small: expected number to be ${expected}`;
    case 'max_value':
      return `Too big: expected number to be ${expected}`;
    case 'safe_integer':
      return 'Invalid input: expected integer';
    case 'regex':
      return `Invalid string: must match pattern ${expected}`;
    default:
      return expected ? `Invalid input: expected ${expected}` : 'Invalid input';
  }
}

/** valibot writes alternatives as `("aws" | "outbox")`; zod wrote `"aws"|"outbox"`, which this keeps. */
function alternatives(expected: string | null): string {
  // Stryker disable next-line StringLiteral,Regex: valibot always words a picklist's or union's alternatives, several as one parenthesised list, one bare
  return (expected ?? '').replace(/^\((.*)\)$/, '$1').replaceAll(' | ', '|');
}
