import * as v from 'valibot';
import { ConfigurationError } from '../core/errors';
import { validate } from '../core/schema';
import { ENV } from '../core/sender-config';

/** The status Lambda needs only the ledger table (`LEDGER_TABLE_NAME`). */
export interface StatusConfig {
  readonly tableName: string;
}

/** @throws ConfigurationError naming the missing or invalid variable. */
export function loadStatusConfig(env: Readonly<Record<string, string | undefined>>): StatusConfig {
  const parsed = validate(v.object({ [ENV.tableName]: v.pipe(v.string(), v.trim(), v.minLength(3)) }), env);
  if (!parsed.success) {
    throw new ConfigurationError(`Invalid status configuration: ${ENV.tableName} must name the ledger table`);
  }
  return { tableName: parsed.output[ENV.tableName] };
}
