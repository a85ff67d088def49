import type { Logger } from '@aws-lambda-powertools/logger';
import type { LogPort } from '../core/observability/log-port';
import { maskAddress } from '../core/event/recipient-address';

/**
 * E-mail addresses and E.164 phone numbers (`+`, 7 to 15 digits: every number the validator accepts) in
 * free text, e.g. a provider's error message. The same phone pattern as the log groups' data-protection
 * policy (`lib/notifier-function.ts`), which stays the net for anything written around this adapter.
 */
const ADDRESS_IN_TEXT = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|\+[1-9][0-9]{6,14}/g;

/** `text` with every address in it masked as {@link maskAddress} does (already masked text is left alone). */
export function maskAddressesIn(text: string): string {
  return text.replace(ADDRESS_IN_TEXT, (address) => maskAddress(address));
}

/** A log attribute with every string in it (nested too) passed through {@link maskAddressesIn}. */
export function maskAttribute(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskAddressesIn(value);
  if (depth >= 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => maskAttribute(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskAttribute(item, depth + 1)]));
}

/**
 * Structured JSON logs through Powertools, with attributes as top-level keys. Callers pass no addresses
 * (see LogPort); any that slip through, e.g. inside a provider's error message, are masked here.
 */
export function powertoolsLog(logger: Logger): LogPort {
  const masked = (attributes: Record<string, unknown> | undefined) => maskAttribute({ ...attributes }) as Record<string, unknown>;
  return {
    info: (message, attributes) => logger.info(maskAddressesIn(message), masked(attributes)),
    warn: (message, attributes) => logger.warn(maskAddressesIn(message), masked(attributes)),
    error: (message, attributes) => logger.error(maskAddressesIn(message), masked(attributes)),
  };
}
