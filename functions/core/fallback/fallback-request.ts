import * as v from 'valibot';
import { validate } from '../schema';

/**
 * The queue message that asks the sender to send a primary's fallback: identifiers only (the row keeps the rest).
 * Sent by the fallback trigger (the ledger stream's consumer), now or delayed by a class's window; sent again by a
 * redelivered stream record or another write of the same row, which is safe: the fallback claims its own row.
 */
export interface FallbackRequest {
  /** Format marker and version. */
  readonly notifierFallback: 1;
  /** The key of the message whose fallback this is. */
  readonly primaryKey: string;
}

const FallbackRequestSchema = v.strictObject({
  notifierFallback: v.literal(1),
  primaryKey: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
});

/** The request's body. */
export function fallbackRequestBody(primaryKey: string): string {
  const request: FallbackRequest = { notifierFallback: 1, primaryKey };
  return JSON.stringify(request);
}

/**
 * The fallback request a queue body holds: `undefined` when it is not one (a notification event, for the event's own
 * parser), `invalid` when it claims to be one and is not.
 */
export function parseFallbackRequest(body: string): FallbackRequest | 'invalid' | undefined {
  if (!body.includes('"notifierFallback"')) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null || !('notifierFallback' in json)) return undefined;
  const checked = validate(FallbackRequestSchema, json);
  return checked.success ? (checked.output as FallbackRequest) : 'invalid';
}
