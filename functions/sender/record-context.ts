import type { DeadLetterSink } from '../core/queue/dead-letter-sink';
import type { MessageClassRegistry } from '../core/policy/message-class';
import type { TemplateRegistry } from '../core/templates/templates';
import type { DeliveryContext, MessageResult } from '../delivery/deliver-message';
import type { ReceiveInfo, RedeliveryPolicy } from '../core/ledger/stale-claim-discovery';

/** What processing one SQS record needs beyond a single delivery. */
export interface RecordContext extends DeliveryContext {
  readonly deadLetters: DeadLetterSink;
  readonly messageClasses: MessageClassRegistry;
  readonly templates: TemplateRegistry;
  readonly maxBodyBytes: number;
  readonly maxClockSkewMs: number;
  /**
   * Dead-letter an event with a field the schema does not know (reason `UnknownField`) instead of dropping the
   * field; either way each one is counted (`UnknownEventField` by name) and logged. @default false
   */
  readonly refuseUnknownEventFields?: boolean;
  /** Bounds concurrent deliveries across the whole batch. */
  readonly limit: <T>(task: () => Promise<T>) => Promise<T>;
  /**
   * Whether a delivery started now can still record its outcome before the function times out.
   * A delivery that would not is left for redelivery instead of leaving a claim that looks dead.
   * @default always true
   */
  readonly hasTimeForDelivery?: () => boolean;
  /** How the source queue redelivers. @default unknown: every claim is discoverable */
  readonly redelivery?: RedeliveryPolicy;
  /**
   * On a redelivered record (receive count > 1), read each message's row before claiming it:
   * measured in `npm run bench` (request probe). @default true
   */
  readonly readBeforeClaimOnRedelivery?: boolean;
}

/** The parts of an SQS record the sender reads. */
export interface QueueRecord {
  readonly messageId: string;
  readonly body: string;
  /** Which receive of the message this is. @default unknown: claims are made discoverable */
  readonly receive?: ReceiveInfo;
}

export interface RecordResult {
  readonly kind: 'settled' | 'dead-lettered';
  readonly messages: readonly MessageResult[];
}

