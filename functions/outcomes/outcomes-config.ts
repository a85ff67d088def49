import * as v from 'valibot';
import { ConfigurationError } from '../core/errors';
import { validate } from '../core/schema';

/** The publisher's variables: the stack sets both (lib/notifier-outcomes.ts). */
export const OUTCOMES_ENV = {
  /** The event bus's name or ARN. */
  eventBusName: 'OUTCOME_EVENT_BUS_NAME',
  /** The classes of the bulk lane, comma-separated; unset when the stack runs one queue (events then carry no lane). */
  bulkClasses: 'OUTCOME_BULK_CLASSES',
} as const;

export interface OutcomesConfig {
  readonly eventBusName: string;
  /** @default none: the events carry no lane */
  readonly bulkClasses?: readonly string[];
}

const Schema = v.object({
  [OUTCOMES_ENV.eventBusName]: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(1600)),
  [OUTCOMES_ENV.bulkClasses]: v.optional(v.string()),
});

/** @throws ConfigurationError naming the missing or invalid variable (never another's value). */
export function loadOutcomesConfig(env: Readonly<Record<string, string | undefined>>): OutcomesConfig {
  const parsed = validate(Schema, env);
  if (!parsed.success) throw new ConfigurationError(`Invalid outcome publisher configuration: ${OUTCOMES_ENV.eventBusName} must name the event bus`);
  const list = parsed.output[OUTCOMES_ENV.bulkClasses];
  const bulkClasses = list === undefined ? undefined : list.split(',').map((name) => name.trim()).filter((name) => name !== '');
  return { eventBusName: parsed.output[OUTCOMES_ENV.eventBusName], ...(bulkClasses ? { bulkClasses } : {}) };
}
