import type { Clock } from '../core/clock';
import type { ConsentStore } from '../core/policy/consent';
import type { DeliveryProviders, TransientCause } from '../core/provider/delivery-provider';
import type { DestinationPolicy } from '../core/policy/destination-policy';
import type { LimitStore } from '../core/policy/limit-store';
import type { LedgerTiming } from '../core/ledger/ledger-decision';
import type { TerminalState } from '../core/ledger/ledger-record';
import type { LogPort } from '../core/observability/log-port';
import type { MetricsRecorder } from '../core/observability/metrics-recorder';
import type { SendRateGovernor } from '../core/policy/send-rate-governor';
import type { SendLedger } from '../core/ledger/send-ledger';
import type { KeptLedgerWrites } from './kept-ledger-writes';

/** The ports and settings one delivery needs. */
export interface DeliveryContext {
  readonly ledger: SendLedger;
  readonly providers: DeliveryProviders;
  readonly metrics: MetricsRecorder;
  readonly log: LogPort;
  readonly clock: Clock;
  /** A fresh random token per processing attempt; never a transport id. */
  readonly newOwnerToken: () => string;
  readonly timing: LedgerTiming;
  readonly sendTimeoutMs: number;
  /** Paces provider calls to the account's sending rate. @default no pacing */
  readonly governor?: Pick<SendRateGovernor, 'acquire' | 'throttled'>;
  /**
   * Pauses (ms) before a throttled send is made again in place, claim held (the urgent lane's:
   * `throttleRetryPausesMs`); after the last, or when the invocation has no time left, the claim is
   * released and the record backed off. @default none: released at the first throttling answer
   */
  readonly throttleRetryPausesMs?: readonly number[];
  /**
   * Waits out one of those pauses. A model that orders every step itself (test/interleavings) makes the
   * pause one of its steps. @default a real timer
   */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * Real time (epoch ms), for the invocation's deadline ({@link latestSendStartMs}): the same as `clock`
   * in Lambda, apart only in tests, whose ledger clock jumps ahead without waiting (the send pace runs on
   * real time too: see send-rate-governor.ts). @default systemClock
   */
  readonly realTime?: Clock;
  /**
   * The latest moment (epoch ms, on {@link realTime}) a provider call may start and still have its outcome
   * recorded before the invocation ends; a call that would have to wait longer for its send slot
   * is deferred instead. @default one send timeout from now
   */
  readonly latestSendStartMs?: () => number;
  /**
   * Whether claims and takeovers enter the pending index, so the reclaimer finds them if this
   * attempt dies: needed only when the queue may not deliver the message again
   * (see stale-claim-discovery.ts). @default true
   */
  readonly claimsDiscoverable?: boolean;
  /**
   * Shards of the pending index a discoverable claim is spread over (`PENDING_INDEX_SHARDS`); the reclaimer walks
   * as many. @default PENDING_SHARD_COUNT
   */
  readonly pendingIndexShards?: number;
  /**
   * Read the row (strongly consistent) before claiming. For a redelivered record the row almost
   * always exists, and a read costs a fifth of the write a failed claim costs. @default false
   */
  readonly readBeforeClaim?: boolean;
  /**
   * The execution environment's memory of the ledger writes it owes (a release of a claim it never
   * sent, an outcome it knows) and could not make: the ledger failed. @default none: such a claim
   * waits out its lease, and its next receive sees an owner that died (a possible send)
   */
  readonly keptWrites?: KeptLedgerWrites;
  /**
   * Where the message classes' limits are counted (after the claim, before the send). The Lambdas
   * always have one. @default none: limits are not counted
   */
  readonly limitStore?: LimitStore;
  /** Which SMS countries and push applications may be sent to. @default every destination */
  readonly destinations?: DestinationPolicy;
  /**
   * Where recipients' opt-outs are recorded and read (consent.ts): a bulk message is checked before its
   * send, and a provider's refusal for consent is recorded. The Lambdas always have one.
   * @default none: consent is neither checked nor recorded
   */
  readonly consent?: ConsentStore;
  /** The prefix of this stack's SES topics (one per bulk class) in the account's contact list. @default '' */
  readonly topicPrefix?: string;
  /** The zone of quiet hours for a recipient with neither a `timeZone` nor a number's country. @default 'UTC' */
  readonly defaultTimeZone?: string;
}

/** Settled: the message is in a terminal state and its record may be acknowledged. */
export type MessageResult =
  | { readonly settled: true; readonly state: TerminalState; readonly settledBy: SettledBy }
  | { readonly settled: false; readonly why: 'transient-failure'; readonly cause: TransientCause }
  /** Held by its class's quiet hours: the claim handed back unsent; the record comes back at `untilMs` (epoch ms). */
  | { readonly settled: false; readonly why: 'quiet-hours'; readonly untilMs: number }
  /** The claim itself refused by the ledger for what it holds (no retry fixes it): nothing was claimed or sent. */
  | { readonly settled: false; readonly why: 'ledger-refused'; readonly detail: string }
  | { readonly settled: false; readonly why: Exclude<UnsettledReason, 'transient-failure' | 'quiet-hours' | 'ledger-refused'> };

/** How a settled message came to be settled. */
export type SettledBy =
  /** This call's own provider request was answered: accepted (SENT) or refused for good (FAILED). */
  | 'provider-call'
  /** SENT on delivery evidence of an earlier call (the row's delivery status or the provider's look-up): nothing sent now. */
  | 'evidence'
  /** Decided without a provider call by the class's or the destination's policy: UNKNOWN (give-up) or SUPPRESSED. */
  | 'policy'
  /** FAILED without a provider call: the message can never be sent (no address, no template, no stored request). */
  | 'unsendable'
  /** Already terminal when this call found it: an earlier attempt settled it. */
  | 'earlier-attempt';

export type UnsettledReason =
  | 'owned-by-another-worker'
  | 'transient-failure'
  /** No send slot within the account's rate before the invocation ends: deferred, not sent. */
  | 'rate-limited'
  | 'ambiguous-outcome'
  | 'waiting-for-evidence'
  | 'claim-lost'
  | 'ledger-error'
  /** The claim was refused by the ledger for what it holds (a ValidationException): the record is dead-lettered with the reason. */
  | 'ledger-refused'
  /** The limit store failed: the claim was handed back unsent and the record backs off. */
  | 'limit-store-unavailable'
  /** The consent store failed: the claim was handed back unsent and the record backs off. */
  | 'consent-store-unavailable'
  /** Inside its class's quiet hours in the recipient's time: deferred to the window's end, never sent early. */
  | 'quiet-hours'
  /** Not started: too little of the invocation left to record an outcome. */
  | 'out-of-time'
  /** Only when resuming a row: the row is past its TTL and counts as absent. */
  | 'row-expired';
