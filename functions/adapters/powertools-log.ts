import type { Logger } from '@aws-lambda-powertools/logger';
import type { LogPort } from '../core/log-port';

/** Structured JSON logs through Powertools, with attributes as top-level keys. */
export function powertoolsLog(logger: Logger): LogPort {
  return {
    info: (message, attributes) => logger.info(message, { ...attributes }),
    warn: (message, attributes) => logger.warn(message, { ...attributes }),
    error: (message, attributes) => logger.error(message, { ...attributes }),
  };
}
