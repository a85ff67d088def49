import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { describeProblems, validate } from '../../functions/core/schema';

const SECRET = 'bob@example.com';

describe('validate', () => {
  it("returns the schema's output, defaults and transforms applied", () => {
    const schema = v.object({ name: v.pipe(v.string(), v.trim()), count: v.optional(v.number(), 3) });
    expect(validate(schema, { name: ' a ', extra: true })).toEqual({ success: true, output: { name: 'a', count: 3 } });
  });

  it('returns every problem with its path, numbers for array items', () => {
    const schema = v.object({ list: v.array(v.object({ id: v.string() })), name: v.string() });
    expect(validate(schema, { list: [{ id: 'a' }, { id: 1 }], name: 2 })).toEqual({
      success: false,
      problems: [
        { path: 'list.1.id', message: 'Invalid input: expected string' },
        { path: 'name', message: 'Invalid input: expected string' },
      ],
    });
  });

  it("keeps a check's own message", () => {
    const schema = v.pipe(v.string(), v.check((s) => s.length > 20, 'is too short to be a key'));
    expect(validate(schema, SECRET)).toEqual({ success: false, problems: [{ path: '', message: 'is too short to be a key' }] });
  });

  // One case per message the formatter words; none may repeat the value (valibot's own would, as `Received "..."`).
  it.each([
    ['a missing key', v.object({ email: v.string() }), {}, 'email: Required'],
    ['an unknown key', v.strictObject({}), { [SECRET]: 1 }, `${SECRET}: Unrecognized key`],
    ['not an object', v.object({}), SECRET, '(root): Invalid input: expected object'],
    ['not an array', v.array(v.string()), SECRET, '(root): Invalid input: expected array'],
    ['not a string', v.string(), [SECRET], '(root): Invalid input: expected string'],
    ['not a literal', v.literal('Notification'), SECRET, '(root): Invalid input: expected "Notification"'],
    ['not an option', v.picklist(['email', 'sms']), SECRET, '(root): Invalid option: expected one of "email"|"sms"'],
    ['no member of a union', v.union([v.number(), v.boolean()]), SECRET, '(root): Invalid input: expected number|boolean'],
    ['too short', v.pipe(v.string(), v.minLength(20)), SECRET, '(root): Too small: expected length to be >=20'],
    ['too long', v.pipe(v.string(), v.maxLength(3)), SECRET, '(root): Too big: expected length to be <=3'],
    ['below a minimum', v.pipe(v.number(), v.minValue(5)), 4, '(root): Too small: expected number to be >=5'],
    ['not above a bound', v.pipe(v.number(), v.gtValue(0)), 0, '(root): Too small: expected number to be >0'],
    ['above a maximum', v.pipe(v.number(), v.maxValue(5)), 6, '(root): Too big: expected number to be <=5'],
    ['not an integer', v.pipe(v.number(), v.safeInteger()), 1.5, '(root): Invalid input: expected integer'],
    ['not matching a pattern', v.pipe(v.string(), v.regex(/^\d+$/)), SECRET, '(root): Invalid string: must match pattern /^\\d+$/'],
    ['an e-mail check', v.pipe(v.string(), v.email()), 'bob@', '(root): Invalid input'],
    ['any other rule that says what it expects', v.pipe(v.string(), v.length(3)), SECRET, '(root): Invalid input: expected 3'],
  ] as const)('words %s without the value', (_what, schema, input, expected) => {
    const result = validate(schema, input);
    expect(result.success ? 'accepted' : describeProblems(result.problems)).toBe(expected);
  });
});

describe('describeProblems', () => {
  const problems = [
    { path: '', message: 'a' },
    { path: 'x.0', message: 'b' },
    { path: 'y', message: 'c' },
  ] as const;

  it('writes `path: message` lines joined by "; ", the root as (root)', () => {
    expect(describeProblems(problems)).toBe('(root): a; x.0: b; y: c');
  });

  it('stops at the limit', () => {
    expect(describeProblems(problems, 2)).toBe('(root): a; x.0: b');
  });
});

describe('the shipped code runs schemas only through validate', () => {
  // valibot words a problem with the refused value unless given our messages, which only validate passes.
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
    );
  const files = ['functions', 'cli'].flatMap((dir) => walk(dir));

  it('no file but functions/core/schema.ts calls valibot to parse', () => {
    expect(files).toContain(join('functions', 'core', 'event', 'notification-event.ts'));
    const calls = /\bv\.(?:safe)?[pP]arser?(?:Async)?\(|\bv\.(?:assert|is)\(|import\s*\{[^}]*\b(?:safeParse|parse|safeParser|parser|assert|is)\b[^}]*\}\s*from\s*'valibot'/;
    const callers = files.filter((file) => file !== join('functions', 'core', 'schema.ts') && calls.test(readFileSync(file, 'utf8')));
    expect(callers).toEqual([]);
    expect(calls.test(readFileSync(join('functions', 'core', 'schema.ts'), 'utf8'))).toBe(true);
  });
});
