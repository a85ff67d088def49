import * as v from 'valibot';
import { ConfigurationError } from '../core/errors';
import { buildMessageClassRegistry, type MessageClassRegistry } from '../core/policy/message-class';
import { ENV } from '../core/sender-config';
import { validate } from '../core/schema';
import type { LaneName } from '../core/policy/send-lanes';

/** The trigger's own variables (the stack sets them: lib/notifier-fallback.ts); the table and classes are the sender's. */
export const FALLBACK_ENV = {
  /** The sender's queue of the urgent lane (the only one when the stack runs one queue). */
  urgentQueueUrl: 'FALLBACK_URGENT_QUEUE_URL',
  /** The sender's queue of the bulk lane. @default the urgent lane's */
  bulkQueueUrl: 'FALLBACK_BULK_QUEUE_URL',
  /** The classes of the bulk lane, comma-separated. @default none */
  bulkClasses: 'FALLBACK_BULK_CLASSES',
} as const;

export interface FallbackConfig {
  readonly tableName: string;
  readonly queueUrls: Readonly<Record<LaneName, string>>;
  readonly bulkClasses: readonly string[];
  /** The classes as the sender reads them (their `fallback` settings), validated at cold start as the sender's. */
  readonly messageClasses: MessageClassRegistry;
}

const url = v.pipe(v.string(), v.trim(), v.url());
const Schema = v.object({
  [ENV.tableName]: v.pipe(v.string(), v.trim(), v.minLength(3)),
  [FALLBACK_ENV.urgentQueueUrl]: url,
  [FALLBACK_ENV.bulkQueueUrl]: v.optional(url),
  [FALLBACK_ENV.bulkClasses]: v.optional(v.string()),
  [ENV.messageClasses]: v.optional(v.string()),
});

/** @throws ConfigurationError naming the missing or invalid variable, or the class setting that is wrong. */
export function loadFallbackConfig(env: Readonly<Record<string, string | undefined>>): FallbackConfig {
  const parsed = validate(Schema, env);
  if (!parsed.success) {
    const names = [...new Set(parsed.problems.map((p) => p.path.split('.')[0]))].join(', ');
    throw new ConfigurationError(`Invalid fallback trigger configuration: ${names} (${ENV.tableName} names the ledger table, ${FALLBACK_ENV.urgentQueueUrl} a queue URL)`);
  }
  const out = parsed.output;
  const urgent = out[FALLBACK_ENV.urgentQueueUrl];
  const bulkClasses = (out[FALLBACK_ENV.bulkClasses] ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  return {
    tableName: out[ENV.tableName],
    queueUrls: { urgent, bulk: out[FALLBACK_ENV.bulkQueueUrl] ?? urgent },
    bulkClasses,
    messageClasses: buildMessageClassRegistry(out[ENV.messageClasses]),
  };
}
