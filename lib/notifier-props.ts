import type { MessageClassDefinition } from '../functions/core/policy/message-class';
import type { LaneOptions } from './notifier-lanes';
import type { ConsentProps } from './props/consent-props';
import type { OutcomeEventProps } from './props/outcome-props';
import type { DeliveryStatusEvidenceProps } from './props/delivery-status-props';
import type { EmailProps } from './props/email-props';
import type { FunctionProps } from './props/function-props';
import type { LedgerProps } from './props/ledger-props';
import type { OperationsProps } from './props/operations-props';
import type { ProducerProps } from './props/producer-props';
import type { PushProps } from './props/push-props';
import type { QueueProps } from './props/queue-props';
import type { SmsProps } from './props/sms-props';

export type { ConsentProps, ContactListOptions } from './props/consent-props';
export type { DeliveryStatusEvidenceProps } from './props/delivery-status-props';
export type { EmailProps } from './props/email-props';
export type { FunctionProps } from './props/function-props';
export type { LedgerProps } from './props/ledger-props';
export type { OperationsProps } from './props/operations-props';
export type { ProducerEventRule, ProducerProps } from './props/producer-props';
export type { PushProps } from './props/push-props';
export type { ExistingQueue, QueueProps } from './props/queue-props';
export type { SmsProps } from './props/sms-props';

/**
 * Configuration of {@link IdempotentNotifier}: one group of props per concern, each in lib/props/ with the
 * names of the code that resolves and validates it.
 */
export interface IdempotentNotifierProps
  extends EmailProps,
    SmsProps,
    PushProps,
    ProducerProps,
    QueueProps,
    FunctionProps,
    LedgerProps,
    DeliveryStatusEvidenceProps,
    OutcomeEventProps,
    ConsentProps,
    OperationsProps {
  /**
   * Message classes added to (or overriding) the built-in ones, passed to the functions as `MESSAGE_CLASSES`.
   * @default - only the built-in classes
   */
  readonly messageClasses?: readonly MessageClassDefinition[];

  /**
   * Priority lanes by message class: an urgent lane (every class but the bulk ones) and a bulk lane
   * (`marketing`), each with its own queue, dead-letter queue, sender and share of the account's send rate;
   * producers publish to `eventTopic`, which routes each event by its `messageClass`. `false`: one queue
   * and one sender for every class, as before lanes.
   * @default - the two lanes with the defaults of `LaneOptions`; one queue when `existingQueue` is given
   */
  readonly lanes?: LaneOptions | false;
}
