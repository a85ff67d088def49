import type { LimitScope } from './message-limits';

/**
 * Why a message was never sent although it could have been: a limit of its class, a destination the
 * deployment does not allow, or a recipient who withdrew consent. A `SUPPRESSED` row is terminal; its
 * redeliveries acknowledge it.
 */
export const SUPPRESSION_REASONS = [
  'AddressLimit',
  'RecipientLimit',
  'NumberBlockLimit',
  'CountryNotAllowed',
  'PushApplicationNotAllowed',
  /** A bulk e-mail to a contact who unsubscribed from its topic (or from all): see consent.ts. */
  'Unsubscribed',
  /** A bulk text to a number that opted out (replied STOP). */
  'OptedOut',
] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** A suppression: the reason (a metric dimension) and an address-free detail for the row and the logs. */
export interface Suppression {
  readonly reason: SuppressionReason;
  readonly detail: string;
}

export const LIMIT_REASON: Readonly<Record<LimitScope, SuppressionReason>> = {
  address: 'AddressLimit',
  recipient: 'RecipientLimit',
  'number-block': 'NumberBlockLimit',
};
