import type { LedgerRow } from '../core/ledger/ledger-record';
import type { MessageClass, MessageClassRegistry } from '../core/policy/message-class';
import { unpackRequest } from '../core/ledger/stored-request';
import { DEFAULT_PUSH_POLICY } from '../core/templates/push-policy';
import type { MessagePlan } from '../delivery/message-plan';

/** Why a row cannot be sent again: it holds no usable rendered request. */
export const REQUEST_NOT_STORED =
  'RequestNotStored: the ledger row holds no rendered request (the message could not be addressed or rendered ' +
  'when it was claimed, was too large to keep, or was claimed where the queue still held it); it cannot be sent from the ledger';

/** A row's delivery plan, and whether its class is still configured. */
export interface RowPlan {
  readonly plan: MessagePlan;
  /** False when the row's class is no longer configured and the conservative stand-in is used. */
  readonly classKnown: boolean;
}

/**
 * Rebuilds the delivery plan of a PENDING row from the row alone: identity, class and the
 * stored request (packed, or plain in a row written before packing). A row whose class was removed from the configuration is handled as
 * `give-up` (a rare miss, never a blind duplicate); a row without a request cannot be sent.
 */
export function planFromRow(row: LedgerRow, classes: MessageClassRegistry): RowPlan {
  const known = classes.get(row.messageClass);
  const messageClass: MessageClass = known ?? {
    name: row.messageClass,
    onAmbiguous: 'give-up',
    lookupFallback: 'give-up',
    evidenceWaitSeconds: 0,
    smsType: 'Transactional',
    limits: [],
    push: DEFAULT_PUSH_POLICY,
    // Only a bulk class's rows carry a consent key: it keeps its unsubscribe path and consent check.
    bulk: row.consentKey !== undefined,
    quietHours: undefined,
  };
  const identity = { eventId: row.eventId, recipientId: row.recipientId, channel: row.channel, templateId: row.templateId };
  const base = { identity, key: row.key, messageClass, occurredAt: row.occurredAt };
  const stored = row.request === undefined ? undefined : unpackRequest(row.request);
  const message = stored?.ok ? stored.message : undefined;
  const prepared: MessagePlan['prepared'] =
    message && message.channel === row.channel
      ? {
          ok: true,
          request: {
            key: row.key,
            message,
            messageClass: messageClass.name,
            smsType: messageClass.smsType,
            push: messageClass.push,
            templateId: row.templateId,
            bulk: messageClass.bulk,
          },
        }
      : { ok: false, reason: stored?.ok === false ? stored.reason : REQUEST_NOT_STORED };
  return { plan: { ...base, prepared }, classKnown: known !== undefined };
}
