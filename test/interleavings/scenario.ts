import fc from 'fast-check';
import type { LedgerWireFault } from './scheduled-ledger-transport';
import type { ProviderAnswer } from './scripted-provider';
import { CLAIM_TIMEOUT_MS, EVIDENCE_WAIT_MS, FUNCTION_TIMEOUT_MS, MESSAGE_COUNT, WORKERS, WORKERS_PER_LANE } from './model-stack';

/**
 * Half the schedules text through End User Messaging (its events carry the key and claim version, and classes wait
 * their evidence windows), half through SNS (its logs name SNS's id only).
 */
export type SmsProviderKind = 'sns' | 'end-user-messaging';

/** A clock jump: within an invocation, past Lambda's timeout, past the claim lease, past the evidence wait. */
export type ClockJump = 'small' | 'function-timeout' | 'lease' | 'evidence-wait';
export const JUMP_MS: Readonly<Record<ClockJump, number>> = {
  small: 1_000,
  'function-timeout': FUNCTION_TIMEOUT_MS + 1,
  lease: CLAIM_TIMEOUT_MS + 1,
  'evidence-wait': EVIDENCE_WAIT_MS + 1,
};

export interface Delivery {
  readonly message: number;
  /** Which of its lane's workers receives it (0 to WORKERS_PER_LANE - 1): the event topic routes a message into its lane. */
  readonly worker: number;
  readonly readBeforeClaim: boolean;
  /** The delivery's invocation dies when its n-th gate is released. @default never */
  readonly crashAt?: number;
  /**
   * Whether the invocation's death takes its execution environment with it (a timeout, an
   * out-of-memory: Lambda starts a new one, whose kept writes are empty) or not (an error thrown:
   * the environment serves the worker's next delivery with its memory). @default false
   */
  readonly losesEnvironment?: boolean;
  /** Rounds of "before returning" retries of the environment's kept writes (createSenderHandler's writeUntil). @default 0 */
  readonly retryRounds?: number;
}

export type WorldEvent =
  | { readonly kind: 'clock'; readonly jump: ClockJump }
  | { readonly kind: 'outage' }
  /** A ledger outage that lasts past a claim's lease: a claim kept through it is stale when the ledger comes back. */
  | { readonly kind: 'outage-across-lease' }
  /**
   * SQS delivers `message` to the `worker`-th worker of its lane; the first of the lane's environments whose claim of it
   * executes then loses its link to DynamoDB while every other actor keeps its own. A lease passes before the link is
   * back, and SQS delivers the message to the lane's other worker and to this one again meanwhile. So the writes it
   * keeps meet a row another environment took over and may still hold: its next invocation's kept writes fail, and its
   * delivery then reads the row under another owner's live claim.
   */
  | { readonly kind: 'partition'; readonly message: number; readonly worker: number }
  | { readonly kind: 'reclaimer'; readonly crashAt?: number }
  | { readonly kind: 'evidence'; readonly message: number }
  /** The worker's environment (any lane's, by global number) is invoked for other work (other records of its batch): it makes its kept writes first. */
  | { readonly kind: 'invocation'; readonly worker: number };

/** One schedule's inputs besides the scheduler's own choices. */
export interface Scenario {
  /** Which of the message shapes this schedule sends (indexes into the eight). */
  readonly messages: readonly number[];
  /** SQS deliveries: every message at least once, some twice or more (at-least-once), in the order each worker receives them. */
  readonly deliveries: readonly Delivery[];
  readonly events: readonly WorldEvent[];
  /** Ledger request attempts (by global number) the network mistreats. */
  readonly ledgerFaults: readonly (readonly [number, LedgerWireFault])[];
  /** Provider calls (by global number) that do not simply accept. */
  readonly providerFaults: readonly (readonly [number, Exclude<ProviderAnswer, 'accept'>])[];
  /** Which service texts. */
  readonly smsProvider: SmsProviderKind;
  /**
   * Messages for which the status Lambda first hears that the row's current attempt was refused (End User Messaging's
   * TEXT_TTL_EXPIRED, SES's Reject: an attempt the provider never accepted), then, late, that an earlier attempt was
   * delivered, with that attempt's own, older event time. Only where the events name the attempt (SES, End User
   * Messaging). Drawn last, so every earlier field of a seed's scenario is what it was before this field existed.
   */
  readonly lateProofs: readonly number[];
  /**
   * Channel fallback (docs/design/fallback.md), drawn after `lateProofs` so every earlier field of a seed is what it was
   * before fallback joined the model; the named regressions found before replay with it emptied.
   */
  readonly fallback: FallbackScenario;
}

/** Which messages name a next channel, and what the world and the stream do about them. */
export interface FallbackScenario {
  /** Messages whose recipient names a fallback (their channel, then the next: e-mail to text, text and push to e-mail). */
  readonly messages: readonly number[];
  /**
   * The provider's word that a message's last accepted send failed for good (SES `Bounce` `Permanent`, End User
   * Messaging `TEXT_BLOCKED`): a world event, at the scheduler's point. SNS's texts and push have no such word.
   */
  readonly hardFailures: readonly number[];
  /** Every stream record handed to the trigger a second time (the stream delivers at least once). */
  readonly streamRepeats: boolean;
  /** Trigger invocations (by number) that die at their n-th gate (1: before the request is on the queue; 2: after). */
  readonly triggerCrashes: readonly (readonly [number, 1 | 2])[];
}

export const NO_FALLBACK: FallbackScenario = { messages: [], hardFailures: [], streamRepeats: false, triggerCrashes: [] };

/** One invocation in four dies at one of its awaits. */
const crashAt = fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 12 }) });
const delivery = (message: fc.Arbitrary<number>) =>
  fc
    .record({ message, worker: fc.nat(WORKERS_PER_LANE - 1), readBeforeClaim: fc.boolean(), crashAt, losesEnvironment: fc.boolean(), retryRounds: fc.nat(2), order: fc.nat(99) })
    .map(withoutUndefined);

const scenarioFor = (messages: readonly number[]): fc.Arbitrary<Scenario> =>
  fc.record({
    messages: fc.constant(messages),
    deliveries: fc
      .tuple(...messages.map((m) => fc.array(delivery(fc.constant(m)), { minLength: 1, maxLength: 3 })))
      // A redelivery may reach a worker before the first delivery of another message.
      .map((perMessage) => perMessage.flat().sort((a, b) => a.order - b.order).map(({ order: _order, ...d }) => d)),
    events: fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant('clock' as const), jump: fc.constantFrom<ClockJump>('small', 'function-timeout', 'lease', 'evidence-wait') }),
        // Twice as likely as the others: an outage between a claim and its release or outcome is what makes an environment keep writes.
        { weight: 2, arbitrary: fc.record({ kind: fc.constant('outage' as const) }) },
        fc.record({ kind: fc.constant('outage-across-lease' as const) }),
        fc.record({ kind: fc.constant('partition' as const), message: fc.constantFrom(...messages), worker: fc.nat(WORKERS_PER_LANE - 1) }),
        fc.record({ kind: fc.constant('reclaimer' as const), crashAt }).map(withoutUndefined),
        fc.record({ kind: fc.constant('evidence' as const), message: fc.constantFrom(...messages) }),
        fc.record({ kind: fc.constant('invocation' as const), worker: fc.nat(WORKERS - 1) }),
      ),
      { maxLength: 6 },
    ),
    ledgerFaults: fc.array(fc.tuple(fc.integer({ min: 1, max: 50 }), fc.constantFrom<LedgerWireFault>('lose-response', 'late-copy', 'cut-off')), {
      maxLength: 5,
    }),
    providerFaults: fc.array(
      fc.tuple(fc.integer({ min: 1, max: 8 }), fc.constantFrom<Exclude<ProviderAnswer, 'accept'>>('throttle', 'reject', 'accept-answer-lost', 'lost-before')),
      { maxLength: 4 },
    ),
    smsProvider: fc.constantFrom<SmsProviderKind>('sns', 'end-user-messaging'),
    lateProofs: fc.array(fc.constantFrom(...messages), { maxLength: 2 }),
    fallback: fc.record({
      messages: fc.subarray([...messages]),
      hardFailures: fc.array(fc.constantFrom(...messages), { maxLength: 2 }),
      streamRepeats: fc.boolean(),
      triggerCrashes: fc.array(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.constantFrom<1 | 2>(1, 2)), { maxLength: 2 }),
    }),
  });

/** Two to eight of the messages per schedule: fewer messages, more contention on each. */
export const scenarioArbitrary: fc.Arbitrary<Scenario> = fc
  .subarray(Array.from({ length: MESSAGE_COUNT }, (_, i) => i), { minLength: 2 })
  .chain(scenarioFor);

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
