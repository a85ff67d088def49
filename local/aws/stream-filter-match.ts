/**
 * Whether `record` matches one Lambda event filter pattern, for the part of the pattern syntax the stack uses:
 * nested objects and lists of exact values (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html,
 * "Filter rule syntax"), and the exists operator alone in a list (`[{ "exists": true }]`: the field is there and holds
 * a JSON primitive; `false`: it is not there; "Using the Exists operator",
 * https://docs.aws.amazon.com/lambda/latest/dg/with-ddb-filtering.html). Anything else in a pattern (prefix, numeric,
 * anything-but, exists beside other values) is refused, not guessed.
 */
export function matchesFilter(pattern: Readonly<Record<string, unknown>>, record: unknown): boolean {
  if (typeof record !== 'object' || record === null) return false;
  const fields = record as Record<string, unknown>;
  return Object.entries(pattern).every(([name, rule]) => {
    const value = fields[name];
    if (Array.isArray(rule)) {
      if (rule.length === 1 && isExistsRule(rule[0])) return existsMatches(rule[0].exists, value);
      if (rule.some((r) => typeof r === 'object' && r !== null)) throw new Error(`filter rule for ${name} is not a list of exact values; the local mapping does not model it`);
      return rule.includes(value);
    }
    if (typeof rule === 'object' && rule !== null) return matchesFilter(rule as Record<string, unknown>, value);
    throw new Error(`filter rule for ${name} must be a list or an object`);
  });
}

/** Lambda passes a record on when it matches any of the patterns (they are ORed). */
export function matchesAnyFilter(patterns: readonly Readonly<Record<string, unknown>>[], record: unknown): boolean {
  return patterns.length === 0 || patterns.some((pattern) => matchesFilter(pattern, record));
}

function isExistsRule(rule: unknown): rule is { readonly exists: boolean } {
  return typeof rule === 'object' && rule !== null && Object.keys(rule).length === 1 && typeof (rule as { exists?: unknown }).exists === 'boolean';
}

/** `exists: true` matches only a JSON primitive (a nested object or list is not matched, as Lambda documents). */
function existsMatches(exists: boolean, value: unknown): boolean {
  const present = value !== undefined && (value === null || typeof value !== 'object');
  return exists ? present : value === undefined;
}
