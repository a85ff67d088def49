/**
 * Sets variables on `process.env` and returns a function that puts back what was there.
 * Variables named in `unset` are removed for the duration (AWS_PROFILE, say, so that no shared
 * config or SSO profile decides where a client goes).
 */
export function applyEnvironment(vars: Readonly<Record<string, string>>, unset: readonly string[] = []): () => void {
  const names = [...Object.keys(vars), ...unset];
  const before = new Map(names.map((name) => [name, process.env[name]]));
  for (const name of unset) delete process.env[name];
  Object.assign(process.env, vars);
  return () => {
    for (const [name, value] of before) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
