import { CONTEXT_KEYS, CONTEXT_PREFIX, NotifierContextError } from './context-config';
import { NotifierConfigurationError } from './notifier-validation';

/**
 * What `cdk synth` prints for a configuration the app cannot use: each problem, and the `notifier:*` setting
 * (cdk.json context or `-c`) to change, without a stack trace; `undefined` for any other error, which is a
 * bug and keeps its stack. A violation names the construct props it is about (`emailFrom (x) ...`); the
 * settings are the context keys of those names.
 */
export function configurationReport(error: unknown): string | undefined {
  if (error instanceof NotifierContextError) {
    return [`Configuration error: ${error.message}`, `Change: ${error.keys.join(', ')} (in cdk.json's "context", or -c key=value)`].join('\n');
  }
  if (!(error instanceof NotifierConfigurationError)) return undefined;
  const lines = ['Configuration error: the settings cannot make a working notifier:'];
  for (const violation of error.violations) {
    lines.push(` - ${violation}`);
    const keys = settingsNamedIn(violation);
    if (keys.length > 0) lines.push(`   change: ${keys.map((k) => CONTEXT_PREFIX + k).join(', ')}`);
  }
  lines.push(`Settings are cdk.json's "context" keys or -c key=value; docs/deployment.md lists them.`);
  return lines.join('\n');
}

/** The context keys a violation names, in the order it names them. */
export function settingsNamedIn(violation: string): string[] {
  const named = CONTEXT_KEYS.map((key) => ({ key, at: violation.search(new RegExp(`(?<![\\w.])${key}(?![\\w])`)) })).filter((k) => k.at >= 0);
  return named.sort((a, b) => a.at - b.at).map((k) => k.key);
}
