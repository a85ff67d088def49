import { newClaimRow } from '../../functions/core/ledger/ledger-decision';
import type { LedgerRow } from '../../functions/core/ledger/ledger-record';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import type { RenderedMessage } from '../../functions/core/templates/rendered-message';
import { packRequest } from '../../functions/core/ledger/stored-request';
import { DEAD_LETTER_ATTRIBUTE } from '../../functions/adapters/sqs-dead-letters';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import { planMessages } from '../../functions/delivery/message-plan';
import { ALARM, type AlarmName } from '../../lib/notifier-alarms';
import type { LedgerTiming } from '../../functions/core/ledger/ledger-decision';
import type { ExpectedMessage } from './expected-message';

/** Alarm delivery through the alarm topic's policy: CloudWatch -> topic -> a subscriber queue the runner owns. */
export interface AlarmProbe {
  /** The alarm the runner sets to ALARM (one the run itself never breaches). */
  readonly alarm: AlarmName;
  /** Stack output holding that alarm's CloudWatch name. */
  readonly alarmNameOutput: string;
  /** `StateReason` of `SetAlarmState`: names the run, so the notification is told apart from real ones. */
  readonly reason: string;
  /** Name of the SQS queue the runner creates, subscribes to the topic, and deletes afterwards. */
  readonly subscriberQueueName: string;
}

/** The reclaimer's resend: a claim whose worker died, planted in the ledger for the scheduled reclaimer. */
export interface ReclaimProbe {
  /** The row as a sender leaves it when it dies right after claiming: PENDING, in the pending index, lease expired. */
  readonly row: LedgerRow;
  readonly expected: ExpectedMessage;
}

/** The dead-letter path: a record the sender can never parse, and what it must carry in the DLQ. */
export interface DeadLetterProbe {
  readonly body: string;
  /** Message attributes the DLQ copy must have with exactly these values. */
  readonly attributes: Readonly<Record<string, string>>;
  /** Further attributes that must be present and non-empty (the detail; the source id is checked against the send). */
  readonly presentAttributes: readonly string[];
  /** Attribute that must equal the SQS message id the runner's SendMessage returned. */
  readonly sourceMessageIdAttribute: string;
}

/** How long before the run's start the planted claim was taken: well past the stack's claim timeout. */
export const PLANTED_CLAIM_AGE_MS = 10 * 60_000;

export function alarmProbe(runId: string): AlarmProbe {
  return {
    // Ledger errors need a failing DynamoDB: nothing in the run breaches it, so the only ALARM is ours.
    alarm: ALARM.ledgerErrors,
    alarmNameOutput: `${ALARM.ledgerErrors}AlarmName`,
    reason: `npm run test:aws run ${runId}: alarm delivery check (SetAlarmState, no real fault)`,
    subscriberQueueName: `NotifierCheck-${runId}-alarm-subscriber`,
  };
}

export function reclaimProbe(o: {
  readonly runId: string;
  readonly nowIso: string;
  readonly email: string;
  /** The copy's ledger timing (the plan pins it in the deploy context). */
  readonly timing: LedgerTiming;
}): ReclaimProbe {
  if (PLANTED_CLAIM_AGE_MS <= o.timing.claimTimeoutMs) throw new Error('the planted claim must be older than the claim timeout');
  const event: NotificationEvent = {
    eventId: `check-${o.runId}-reclaim`,
    occurredAt: o.nowIso,
    type: 'LoginCodeRequested',
    templateId: 'login-code',
    // otp resends a claim whose outcome is unknown: the reclaimer must send it, not wait for evidence.
    messageClass: 'otp',
    data: { code: '000000', expiresInMinutes: 10 },
    recipients: [{ recipientId: 'reclaim', email: o.email, channels: ['email'] }],
  };
  const messageClass = buildMessageClassRegistry().get(event.messageClass);
  if (!messageClass) throw new Error(`message class ${event.messageClass} is unknown`);
  const [plan] = planMessages(event, messageClass, repositoryTemplates());
  if (!plan?.prepared.ok) throw new Error(`the reclaim probe's event does not render: ${plan?.prepared.ok === false ? plan.prepared.reason : 'no message'}`);
  const claimedAt = Date.parse(o.nowIso) - PLANTED_CLAIM_AGE_MS;
  const row = newClaimRow({ subject: {
      key: plan.key,
      ...plan.identity,
      messageClass: plan.messageClass.name,
      occurredAt: plan.occurredAt,
    }, ownerToken: `check-${o.runId}-dead-worker`, nowMs: claimedAt, timing: o.timing, request: packed(plan.prepared.request.message) });
  return {
    row,
    expected: {
      eventId: event.eventId,
      recipientId: 'reclaim',
      channel: 'email',
      proves: 'the scheduled reclaimer took over a dead PENDING claim and resent it, and SES delivery evidence reached its row',
      intermediateStatuses: ['Send'],
      finalStatus: 'Delivery',
      takenOver: true,
    },
  };
}

/** The message packed as a sender's discoverable claim keeps it. */
function packed(message: RenderedMessage): Uint8Array {
  const packing = packRequest(message);
  if (!packing.ok) throw new Error(packing.reason);
  return packing.packed;
}

export function deadLetterProbe(runId: string): DeadLetterProbe {
  return {
    body: `npm run test:aws run ${runId}: not JSON`,
    attributes: { [DEAD_LETTER_ATTRIBUTE.reason]: 'NotJson' },
    presentAttributes: [DEAD_LETTER_ATTRIBUTE.detail],
    sourceMessageIdAttribute: DEAD_LETTER_ATTRIBUTE.sourceMessageId,
  };
}

/** Queue policy of the alarm subscriber: only the stack's alarm topic may send to it. */
export function subscriberQueuePolicy(queueArn: string, topicArn: string): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Sid: 'AlarmTopicSends',
        Effect: 'Allow',
        Principal: { Service: 'sns.amazonaws.com' },
        Action: 'sqs:SendMessage',
        Resource: queueArn,
        Condition: { ArnEquals: { 'aws:SourceArn': topicArn } },
      },
    ],
  });
}

/** `aws cloudwatch set-alarm-state` arguments (the project has no CloudWatch SDK client; the CLI signs the call). */
export function setAlarmStateArgs(probe: AlarmProbe, alarmName: string): string[] {
  return ['cloudwatch', 'set-alarm-state', '--alarm-name', alarmName, '--state-value', 'ALARM', '--state-reason', probe.reason];
}
