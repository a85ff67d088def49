import * as v from 'valibot';

// valibot's object and record schemas take an array for an object (`typeof [] === 'object'`), and its
// record skips the keys `constructor` and `prototype` unvalidated and leaves them out of its output. A
// JSON object is neither: these three refuse an array, as zod did before them and as JSON Schema does,
// and the record keeps and checks every own key but `__proto__` (which would replace the output's
// prototype). Each is valibot's schema with its run replaced, so types and issues stay valibot's; only
// `~run` is replaced, which is what valibot's own parse calls (its Standard Schema `validate` is not used).

/** valibot's `object` (unknown keys are dropped), refusing an array. */
export function jsonObject<const TEntries extends v.ObjectEntries>(entries: TEntries): v.ObjectSchema<TEntries, undefined> {
  return refusingArrays(v.object(entries));
}

/** valibot's `strictObject` (an unknown key is a problem), refusing an array. */
export function jsonStrictObject<const TEntries extends v.ObjectEntries>(entries: TEntries): v.StrictObjectSchema<TEntries, undefined> {
  return refusingArrays(v.strictObject(entries));
}

/** Key problems of one record entry skip its value, as a key that is not allowed has no value to check. */
export function jsonRecord<
  const TKey extends v.BaseSchema<string, string, v.BaseIssue<unknown>>,
  const TValue extends v.GenericSchema,
>(key: TKey, value: TValue): v.RecordSchema<TKey, TValue, undefined> {
  const schema = v.record(key, value);
  return {
    ...schema,
    '~run'(dataset, config) {
      const input = dataset.value;
      if (!isJsonObject(input)) return typeFailure(schema, dataset, config);
      const run = dataset as Dataset;
      const output: Record<string, unknown> = {};
      run.typed = true;
      run.value = output;
      for (const entryKey of Object.keys(input)) {
        if (entryKey === '__proto__') continue;
        const entryValue = input[entryKey];
        const keyRun = key['~run']({ value: entryKey }, config);
        if (keyRun.issues) {
          addIssues(run, keyRun.issues, { type: 'object', origin: 'key', input, key: entryKey, value: entryValue });
          if (!keyRun.typed) run.typed = false;
          continue;
        }
        const valueRun = value['~run']({ value: entryValue }, config);
        if (valueRun.issues) addIssues(run, valueRun.issues, { type: 'object', origin: 'value', input, key: entryKey, value: entryValue });
        if (!valueRun.typed) run.typed = false;
        output[keyRun.value] = valueRun.value;
      }
      return run as unknown as ReturnType<(typeof schema)['~run']>;
    },
  };
}

/** What a schema's run fills in: valibot's datasets, written to as its own schemas do. */
interface Dataset {
  typed: boolean;
  value: unknown;
  issues?: v.BaseIssue<unknown>[];
}

function isJsonObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refusingArrays<TSchema extends v.GenericSchema>(schema: TSchema): TSchema {
  return {
    ...schema,
    '~run'(dataset, config) {
      return Array.isArray(dataset.value) ? typeFailure(schema, dataset, config) : schema['~run'](dataset, config);
    },
  };
}

/** The issue valibot's own schema adds for an input of the wrong type ("expected Object"). */
function typeFailure<TSchema extends v.GenericSchema>(
  schema: TSchema,
  dataset: v.UnknownDataset,
  config: v.Config<v.BaseIssue<unknown>>,
): ReturnType<TSchema['~run']> {
  // Stryker disable next-line StringLiteral: the label only words valibot's default message, which validate() never uses
  v._addIssue(schema, 'type', dataset, config);
  return dataset as ReturnType<TSchema['~run']>;
}

/** Moves an entry's issues to the record, their paths starting at the entry (valibot builds paths so, from the leaf up). */
function addIssues(dataset: Dataset, issues: readonly v.BaseIssue<unknown>[], item: v.ObjectPathItem): void {
  for (const issue of issues as readonly { path?: v.IssuePathItem[] }[]) {
    if (issue.path) issue.path.unshift(item);
    else issue.path = [item];
  }
  (dataset.issues ??= []).push(...issues);
}
