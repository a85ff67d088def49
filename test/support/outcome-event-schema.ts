import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

/** The committed JSON Schema of an outcome event's detail (schemas/outcome-event.json). */
export const OUTCOME_EVENT_SCHEMA = JSON.parse(readFileSync(new URL('../../schemas/outcome-event.json', import.meta.url), 'utf8')) as JsonSchema;

/** The part of JSON Schema the committed schema uses; a keyword outside it fails the check instead of being ignored. */
interface JsonSchema {
  readonly type?: 'object' | 'string' | 'integer';
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly additionalProperties?: false;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly pattern?: string;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly format?: 'date-time';
}
const KNOWN = new Set(['$schema', '$id', 'title', 'description', 'type', 'required', 'properties', 'additionalProperties', 'enum', 'const', 'pattern', 'maxLength', 'minimum', 'format']);

/**
 * The problems of `value` against `schema`, each naming the path (a small checker for the keywords above, so the
 * tests need no JSON Schema library; a schema keyword it does not know is itself a problem).
 */
export function schemaProblems(schema: JsonSchema, value: unknown, path = 'detail'): string[] {
  const unknown = Object.keys(schema).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) return [`${path}: the checker does not know ${unknown.join(', ')}`];
  const problems: string[] = [];
  if ('const' in schema && value !== schema.const) problems.push(`${path}: must be ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.includes(value)) problems.push(`${path}: must be one of ${schema.enum.join(', ')}`);
  if (schema.type === 'string' && typeof value !== 'string') problems.push(`${path}: must be a string`);
  if (schema.type === 'integer' && !Number.isInteger(value)) problems.push(`${path}: must be an integer`);
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) problems.push(`${path}: must match ${schema.pattern}`);
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) problems.push(`${path}: longer than ${schema.maxLength}`);
    if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) problems.push(`${path}: not a date-time`);
  }
  if (typeof value === 'number' && schema.minimum !== undefined && value < schema.minimum) problems.push(`${path}: below ${schema.minimum}`);
  if (schema.type === 'object') {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return [...problems, `${path}: must be an object`];
    const fields = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (!(name in fields)) problems.push(`${path}.${name}: required`);
    for (const [name, field] of Object.entries(fields)) {
      const property = schema.properties?.[name];
      if (!property) {
        if (schema.additionalProperties === false) problems.push(`${path}.${name}: not in the schema`);
        continue;
      }
      problems.push(...schemaProblems(property, field, `${path}.${name}`));
    }
  }
  return problems;
}

/** Fails the test when an outcome event's detail does not match the committed schema. */
export function expectOutcomeEventSchema(details: readonly unknown[]): void {
  for (const detail of details) expect(schemaProblems(OUTCOME_EVENT_SCHEMA, detail)).toEqual([]);
}
