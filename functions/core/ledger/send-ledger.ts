import type { AmbiguityStreak } from './ambiguity-loop';
import type { Claim, LedgerRow, ReleaseReason } from './ledger-record';
import type { PackedRequest } from './stored-request';
import type { Suppression } from '../policy/suppression';

// The write shapes of the port live with it; ledger-decision.ts computes them.

/** The fields a takeover writes, fenced on the old row's claim version. */
export interface TakeoverFields {
  readonly expectedClaimVersion: number;
  readonly claimVersion: number;
  readonly ownerToken: string;
  readonly claimedAt: number;
  readonly leaseExpiresAt: number;
  readonly attempts: number;
  readonly lastAmbiguousAt: number | undefined;
  readonly expiresAt: number;
  /** Set when this takeover must enter the pending index (a row already in it stays there). */
  readonly pendingShard: string | undefined;
  /**
   * The packed message, set when the row is in the pending index after this takeover and keeps no message
   * yet: the reclaimer may have to send it without the event (see stored-request.ts). @default none: the row keeps what it holds
   */
  readonly request?: PackedRequest;
}

/** The terminal state a completion writes onto a held claim. */
export type TerminalWrite =
  | {
      readonly state: 'SENT';
      readonly providerMessageId: string;
      /** SNS's id of an SMS this attempt sent, for the sparse SMS index; absent otherwise. @default none */
      readonly smsMessageId?: string;
    }
  | { readonly state: 'FAILED'; readonly reason: string }
  | { readonly state: 'UNKNOWN'; readonly reason: string }
  | { readonly state: 'SUPPRESSED'; readonly suppression: Suppression };

/** A claim handed back so the next delivery may take it over at once. */
export interface Release {
  readonly reason: ReleaseReason;
  readonly detail: string;
  readonly lastAmbiguousAt: number | undefined;
  /**
   * After this attempt's own call met ambiguity: the row's new streak, or `reset` when the provider answered.
   * @default the row's streak is left as it is (a refusal, a wait for evidence, a ledger error)
   */
  readonly ambiguityStreak?: AmbiguityStreak | 'reset';
}

export type ClaimResult = { readonly claimed: true } | { readonly claimed: false; readonly existing: LedgerRow | undefined };

/**
 * A claim or takeover whose request failed with an unknown result: it may not have executed,
 * executed, or still execute later (a copy held up in the network).
 */
export type UnconfirmedClaim =
  | { readonly kind: 'claim'; readonly row: LedgerRow }
  | { readonly kind: 'takeover'; readonly key: string; readonly fields: TakeoverFields };

/**
 * The send ledger port. Every write is conditional; `false` means the condition failed
 * (someone else holds or finished the row), never "try again blindly".
 */
export interface SendLedger {
  /**
   * Creates the row if it is absent, TTL-expired, or already this attempt's own
   * (a retried request whose first response was lost).
   */
  claim(row: LedgerRow, nowMs: number): Promise<ClaimResult>;
  /** Takes over a PENDING row, only if its claim version is still `expectedClaimVersion`. */
  takeOver(key: string, fields: TakeoverFields): Promise<boolean>;
  /** Writes SENT / FAILED / UNKNOWN, only while `claim` is still held. */
  complete(claim: Claim, terminal: TerminalWrite, nowMs: number, expiresAt: number): Promise<boolean>;
  /** Hands the claim back (lease ends now), only while `claim` is still held. */
  release(claim: Claim, release: Release, nowMs: number): Promise<boolean>;
  /**
   * Hands back a claim whose request failed with an unknown result, whether or not that request
   * executed: writes the claim as already released, so that the request, if it executes later,
   * finds the row changed and fails its own condition. `false` when someone else holds the row.
   */
  releaseUnconfirmed(attempt: UnconfirmedClaim, release: Release, nowMs: number): Promise<boolean>;
  /** Strongly consistent read. */
  get(key: string): Promise<LedgerRow | undefined>;
}
