import type { LimitScope } from './message-limits';

/**
 * Why a message was never sent although it could have been: a limit of its class, or a destination
 * the deployment does not allow. A `SUPPRESSED` row is terminal; its redeliveries acknowledge it.
 */
export const SUPPRESSION_REASONS = [
  'AddressLimit',
  'RecipientLimit',
  'NumberBlockLimit',
  'CountryNotAllowed',
  'PushApplicationNotAllowed',
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
