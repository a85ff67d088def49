/** Most unknown fields one event reports: the first few say what the producer sends; the metric stays bounded. */
export const MAX_REPORTED_UNKNOWN_FIELDS = 10;

/** A field name as it may appear in a metric dimension and a log line: short, plain characters. */
const PRINTABLE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

interface SchemaNode {
  readonly type?: string;
  readonly entries?: Record<string, SchemaNode>;
  readonly pipe?: readonly SchemaNode[];
  readonly item?: SchemaNode;
}

/** The object schema inside a (possibly piped) schema. */
function objectOf(schema: SchemaNode | undefined): SchemaNode | undefined {
  if (!schema) return undefined;
  if (schema.entries) return schema;
  return schema.pipe?.[0] ? objectOf(schema.pipe[0]) : undefined;
}

/** The item schema of a (possibly piped) array schema. */
function itemOf(schema: SchemaNode | undefined): SchemaNode | undefined {
  if (!schema) return undefined;
  if (schema.item) return schema.item;
  return schema.pipe?.[0] ? itemOf(schema.pipe[0]) : undefined;
}

interface KnownFields {
  readonly event: ReadonlySet<string>;
  readonly recipient: ReadonlySet<string>;
}

const knownBySchema = new WeakMap<object, KnownFields>();

/** The field names the event schema knows, read from the schema itself: a field it learns is known here the same day. */
function known(schema: object): KnownFields {
  const cached = knownBySchema.get(schema);
  if (cached) return cached;
  const event = objectOf(schema as SchemaNode);
  const fields = {
    event: new Set(Object.keys(event?.entries ?? {})),
    recipient: new Set(Object.keys(objectOf(itemOf(event?.entries?.recipients))?.entries ?? {})),
  };
  knownBySchema.set(schema, fields);
  return fields;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const shown = (name: string): string => (PRINTABLE_NAME.test(name) ? name : '(unprintable name)');

/**
 * The fields of an event payload (the event itself, after its envelope) that `schema` (the event schema, a
 * valibot object with a `recipients` array of objects, possibly piped) does not know,
 * by name only, never a value: `locale` at the top, `recipients[].locale` in a recipient. Each name once, at most
 * {@link MAX_REPORTED_UNKNOWN_FIELDS}; a name that is long or holds other characters is reported as
 * `(unprintable name)`, since a name is producer input too. Pure.
 */
export function unknownEventFields(schema: object, payload: unknown): string[] {
  if (!isObject(payload)) return [];
  const { event: EVENT_FIELDS, recipient: RECIPIENT_FIELDS } = known(schema);
  const found = new Set<string>();
  for (const name of Object.keys(payload)) if (!EVENT_FIELDS.has(name)) found.add(shown(name));
  const recipients = payload.recipients;
  if (Array.isArray(recipients)) {
    for (const recipient of recipients) {
      if (!isObject(recipient)) continue;
      for (const name of Object.keys(recipient)) if (!RECIPIENT_FIELDS.has(name)) found.add(`recipients[].${shown(name)}`);
    }
  }
  return [...found].slice(0, MAX_REPORTED_UNKNOWN_FIELDS);
}
