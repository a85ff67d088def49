import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { jsonObject, jsonRecord, jsonStrictObject } from '../../functions/core/json-objects';
import { describeProblems, validate } from '../../functions/core/schema';

const outcome = (schema: Parameters<typeof validate>[0], input: unknown) => {
  const result = validate(schema, input);
  return result.success ? { output: result.output } : { problems: describeProblems(result.problems) };
};

describe('JSON objects: an array is not one', () => {
  // valibot's own object and record take an array, so an object with only optional keys let one in.
  it.each([
    ['jsonObject', jsonObject({ reason: v.optional(v.string()) })],
    ['jsonStrictObject', jsonStrictObject({ reason: v.optional(v.string()) })],
    ['jsonRecord', jsonRecord(v.string(), v.string())],
  ])('%s refuses an array, and takes an object', (_name, schema) => {
    expect(outcome(schema, [])).toEqual({ problems: '(root): Invalid input: expected object' });
    expect(outcome(schema, null)).toEqual({ problems: '(root): Invalid input: expected object' });
    expect(outcome(schema, {})).toEqual({ output: {} });
  });

  it.each([5, 'text', true])('jsonRecord refuses %j: a value that is no object at all', (input) => {
    expect(outcome(jsonRecord(v.string(), v.string()), input)).toEqual({ problems: '(root): Invalid input: expected object' });
  });

  it('keeps what valibot does otherwise: unknown keys dropped, or refused by the strict one', () => {
    expect(outcome(jsonObject({ a: v.string() }), { a: 'x', b: 1 })).toEqual({ output: { a: 'x' } });
    expect(outcome(jsonStrictObject({ a: v.string() }), { a: 'x', b: 1 })).toEqual({ problems: 'b: Unrecognized key' });
    expect(outcome(jsonObject({ a: v.string() }), {})).toEqual({ problems: 'a: Required' });
  });
});

describe('jsonRecord: every own key but __proto__', () => {
  const record = jsonRecord(v.pipe(v.string(), v.regex(/^[a-z]+$/, 'lower-case letters only')), v.pipe(v.string(), v.maxLength(3)));

  it('checks and keeps constructor and prototype, which valibot skips unchecked', () => {
    const input = JSON.parse('{"constructor":"abc","prototype":"de"}') as unknown;
    expect(outcome(record, input)).toEqual({ output: { constructor: 'abc', prototype: 'de' } });
    expect(Object.keys((validate(record, input) as { output: object }).output)).toEqual(['constructor', 'prototype']);
    expect(outcome(record, JSON.parse('{"constructor":{"x":1},"prototype":"long"}'))).toEqual({
      problems: 'constructor: Invalid input: expected string; prototype: Too big: expected length to be <=3',
    });
  });

  it('leaves __proto__ out, unchecked, so it cannot set the output prototype', () => {
    const result = validate(record, JSON.parse('{"__proto__":{"polluted":"yes"},"ok":"x"}'));
    expect(result).toEqual({ success: true, output: { ok: 'x' } });
    expect(Object.getPrototypeOf(result.success && result.output)).toBe(Object.prototype);
  });

  it('reports a bad key by its name and then skips its value', () => {
    expect(outcome(record, { Bad: 'too long', good: 'long', fine: 'ok' })).toEqual({
      problems: 'Bad: lower-case letters only; good: Too big: expected length to be <=3',
    });
  });

  it('puts a nested problem under the entry', () => {
    const nested = jsonRecord(v.string(), jsonObject({ Type: v.string() }));
    expect(outcome(nested, { tenant: { Value: 'shop' } })).toEqual({ problems: 'tenant.Type: Required' });
    expect(outcome(v.object({ attributes: nested }), { attributes: { tenant: [] } })).toEqual({
      problems: 'attributes.tenant: Invalid input: expected object',
    });
  });

  it('is untyped when a key or a value is of the wrong type, so a check after it does not run on it', () => {
    const checked = (schema: Parameters<typeof validate>[0]) => v.pipe(schema as v.GenericSchema, v.check(() => false, 'the check ran'));
    expect(outcome(checked(jsonRecord(v.picklist(['a', 'b']), v.string())), { c: 'x' })).toEqual({ problems: 'c: Invalid option: expected one of "a"|"b"' });
    expect(outcome(checked(jsonRecord(v.string(), v.string())), { c: 1 })).toEqual({ problems: 'c: Invalid input: expected string' });
    // A key or a value that only breaks a bound is still typed: the check runs, as after valibot's own record.
    expect(outcome(checked(jsonRecord(v.pipe(v.string(), v.maxLength(1)), v.string())), { ab: 'x' })).toEqual({
      problems: 'ab: Too big: expected length to be <=1; (root): the check ran',
    });
    expect(outcome(checked(jsonRecord(v.string(), v.pipe(v.string(), v.maxLength(1)))), { c: 'xy' })).toEqual({
      problems: 'c: Too big: expected length to be <=1; (root): the check ran',
    });
  });
});
