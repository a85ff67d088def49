/**
 * Whether `record` matches one Lambda event filter pattern, for the part of the pattern syntax the stack uses:
 * nested objects and lists of exact values (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html,
 * "Filter rule syntax"). Anything else in a pattern (prefix, numeric, exists, anything-but) is refused, not guessed.
 */
export function matchesFilter(pattern: Readonly<Record<string, unknown>>, record: unknown): boolean {
  if (typeof record !== 'object' || record === null) return false;
  const fields = record as Record<string, unknown>;
  return Object.entries(pattern).every(([name, rule]) => {
    const value = fields[name];
    if (Array.isArray(rule)) {
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
