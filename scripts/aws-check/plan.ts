import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import type { NotificationEvent } from '../../functions/core/event/notification-event';
import { emailFromViolations } from '../../lib/email-from';
import { DEFAULT_CONTACT_LIST_NAME } from '../../lib/notifier-consent';
import type { ExpectedMessage } from './expected-message';
import { type AlarmProbe, alarmProbe, type DeadLetterProbe, deadLetterProbe, type ReclaimProbe, reclaimProbe } from './probes';

/** The SES mailbox simulator: SES accepts the message, then reports what the address is named after. */
export const SES_SIMULATOR = {
  success: 'success@simulator.amazonses.com',
  bounce: 'bounce@simulator.amazonses.com',
  complaint: 'complaint@simulator.amazonses.com',
} as const;

/** What the check needs to know, from the environment of `npm run test:aws`. */
export interface AwsCheckOptions {
  /** Distinguishes this run's stack from every other (lowercase letters and digits, 4-16). */
  readonly runId: string;
  /** A From address on an identity verified in SES in the target region. */
  readonly emailFrom: string;
  /**
   * Also send one SMS to this number (E.164; in the SNS SMS sandbox, a verified destination).
   * @default - no SMS: SMS costs money per message and needs an origination setup in many countries
   */
  readonly smsTo?: string;
  /**
   * With `smsTo`: the account's SNS monthly SMS spend limit (USD) the copy sets, as every stack that sends SMS
   * must (`notifier:smsMonthlySpendLimitUsd`). Give the account's current limit to leave it as it is.
   * @default - none: required with `smsTo`
   */
  readonly smsSpendLimitUsd?: number;
  /**
   * With `smsTo`: send it through End User Messaging SMS from this origination identity (a phone-number, sender-id
   * or pool ARN of the account), so its events, not SNS's logs, are the evidence.
   * @default - none: through SNS
   */
  readonly smsOriginationIdentity?: string;
  /**
   * The name of a contact list the account already has (SES allows one per account and region): both deploys of the
   * copy adopt it (`createContactList` false) and the run never deletes it.
   * @default - none: the first deploy creates `notifier`, the redeploy adopts it, and the runner deletes it at the end
   */
  readonly existingContactList?: string;
  /** Time the events claim to have happened at (ISO-8601); the run's start. */
  readonly nowIso: string;
}

/** Everything `run.ts` does, decided up front (and unit-tested offline). */
export interface AwsCheckPlan {
  readonly stackName: string;
  /** `-c` values of the deploy: an isolated, disposable copy. */
  readonly context: Readonly<Record<string, string>>;
  /** Messages to put on the queue, in order (an event may be sent twice: the ledger must suppress the copy). */
  readonly sends: readonly NotificationEvent[];
  readonly expected: readonly ExpectedMessage[];
  readonly alarm: AlarmProbe;
  /** Planted before the sends; its expected outcome is also in `expected`. */
  readonly reclaim: ReclaimProbe;
  readonly deadLetter: DeadLetterProbe;
  /**
   * The account's SES contact list the copy sends bulk e-mail with, and whether the runner deletes it at the end (only
   * one the first deploy created: the stack keeps it on destroy, RetainExceptOnCreate).
   */
  readonly contactList: { readonly name: string; readonly deleteAfterRun: boolean };
}

/** Ledger timing the copy is deployed with (pinned in its context, so the planted claim is certainly stale). */
export const CHECK_CLAIM_TIMEOUT_SECONDS = 120;
export const CHECK_LEDGER_RETENTION_DAYS = 30;

const RUN_ID = /^[a-z0-9]{4,16}$/;
const E164 = /^\+[1-9]\d{6,14}$/;

/** Every reason the options cannot run, each naming its value; empty when they can. */
export function awsCheckOptionViolations(o: AwsCheckOptions): string[] {
  const violations = emailFromViolations(o.emailFrom).map((v) => `NOTIFIER_CHECK_EMAIL_FROM: ${v}`);
  if (!RUN_ID.test(o.runId)) violations.push(`run id (${o.runId}) must be 4 to 16 lowercase letters or digits`);
  if (o.smsTo !== undefined && !E164.test(o.smsTo)) {
    violations.push(`NOTIFIER_CHECK_SMS_TO (${o.smsTo}) must be an E.164 phone number (+ and 7 to 15 digits)`);
  }
  if (o.smsTo !== undefined && !(o.smsSpendLimitUsd !== undefined && Number.isFinite(o.smsSpendLimitUsd) && o.smsSpendLimitUsd >= 0)) {
    violations.push(
      `NOTIFIER_CHECK_SMS_SPEND_LIMIT_USD (${o.smsSpendLimitUsd}) is required with NOTIFIER_CHECK_SMS_TO: the account's SMS spend limit the copy sets (give the current one to keep it)`,
    );
  }
  if (o.smsOriginationIdentity !== undefined && o.smsTo === undefined) {
    violations.push(`NOTIFIER_CHECK_SMS_ORIGINATION_IDENTITY (${o.smsOriginationIdentity}) needs NOTIFIER_CHECK_SMS_TO: the number to text`);
  }
  if (o.existingContactList !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(o.existingContactList)) {
    violations.push(`NOTIFIER_CHECK_CONTACT_LIST (${o.existingContactList}) must be an SES contact list name: 1-64 letters, digits, _ or -`);
  }
  if (Number.isNaN(Date.parse(o.nowIso))) violations.push(`start time (${o.nowIso}) is not an ISO-8601 time`);
  return violations;
}

/** The isolated stack, the events and what each must lead to. Throws on invalid options. */
export function planAwsCheck(o: AwsCheckOptions): AwsCheckPlan {
  const violations = awsCheckOptionViolations(o);
  if (violations.length > 0) throw new Error(`npm run test:aws cannot run:\n - ${violations.join('\n - ')}`);
  const stackName = `NotifierCheck-${o.runId}`;
  const eum = o.smsOriginationIdentity !== undefined;
  const event = (suffix: string, recipient: NotificationEvent['recipients'][number]): NotificationEvent => ({
    eventId: `check-${o.runId}-${suffix}`,
    occurredAt: o.nowIso,
    type: 'OrderShipped',
    templateId: 'order-shipped',
    messageClass: 'transactional',
    data: { orderId: `check-${o.runId}`, carrier: 'DHL', trackingNumber: 'CHECK0001' },
    recipients: [recipient],
  });
  const email = (name: keyof typeof SES_SIMULATOR) =>
    event(name, { recipientId: name, email: SES_SIMULATOR[name], channels: ['email'] });
  const success = email('success');
  const sends: NotificationEvent[] = [success, email('bounce'), email('complaint'), success];
  const expected: ExpectedMessage[] = [
    {
      eventId: success.eventId,
      recipientId: 'success',
      channel: 'email',
      proves: 'sent once although queued twice, and SES delivery evidence reached its row',
      intermediateStatuses: ['Send'],
      finalStatus: 'Delivery',
    },
    {
      eventId: `check-${o.runId}-bounce`,
      recipientId: 'bounce',
      channel: 'email',
      proves: 'a hard bounce reaches the row',
      intermediateStatuses: ['Send'],
      finalStatus: 'Bounce',
    },
    {
      eventId: `check-${o.runId}-complaint`,
      recipientId: 'complaint',
      channel: 'email',
      proves: 'a complaint after delivery reaches the row',
      intermediateStatuses: ['Send', 'Delivery'],
      finalStatus: 'Complaint',
    },
  ];
  const reclaim = reclaimProbe({
    runId: o.runId,
    nowIso: o.nowIso,
    email: SES_SIMULATOR.success,
    timing: { claimTimeoutMs: CHECK_CLAIM_TIMEOUT_SECONDS * 1000, retentionMs: CHECK_LEDGER_RETENTION_DAYS * 86_400_000 },
  });
  expected.push(reclaim.expected);
  if (o.smsTo !== undefined) {
    const sms = event('sms', { recipientId: 'sms', phone: o.smsTo, channels: ['sms'] });
    sends.push(sms);
    expected.push(
      eum
        ? {
            eventId: sms.eventId,
            recipientId: 'sms',
            channel: 'sms',
            proves: "a text is sent through End User Messaging and its events (the key in their Context) reach the row through the events queue",
            // "Depending on the destination country the TEXT_DELIVERED and TEXT_SUCCESSFUL events may be used interchangeably".
            intermediateStatuses: ['TEXT_QUEUED', 'TEXT_PENDING', 'TEXT_SUCCESSFUL'],
            finalStatus: 'TEXT_DELIVERED',
          }
        : {
            eventId: sms.eventId,
            recipientId: 'sms',
            channel: 'sms',
            proves: 'an SMS is sent and its SNS delivery-status log reaches the row',
            intermediateStatuses: [],
            finalStatus: 'SUCCESS',
          },
    );
  }
  const listName = o.existingContactList ?? DEFAULT_CONTACT_LIST_NAME;
  return {
    stackName,
    contactList: { name: listName, deleteAfterRun: o.existingContactList === undefined },
    context: {
      'notifier:stackName': stackName,
      'notifier:emailFrom': o.emailFrom,
      'notifier:smsEnabled': String(o.smsTo !== undefined),
      // SMS needs its country list: the test number's own country, and no other.
      ...(o.smsTo !== undefined ? { 'notifier:smsCountries': countryOfTestNumber(o.smsTo) } : {}),
      // SNS's logs are SNS's evidence; End User Messaging's events come through the stack's own events queue.
      'notifier:smsDeliveryStatusLogs': String(o.smsTo !== undefined && !eum),
      ...(eum ? { 'notifier:smsProvider': 'end-user-messaging', 'notifier:smsOriginationIdentities': o.smsOriginationIdentity! } : {}),
      ...(o.smsTo !== undefined ? { 'notifier:smsMonthlySpendLimitUsd': String(o.smsSpendLimitUsd) } : {}),
      'notifier:pushEnabled': 'false',
      // A disposable copy: the table must be deletable after the run (it is RETAINed, then deleted by the runner).
      'notifier:tableDeletionProtection': 'false',
      'notifier:logRetentionDays': '1',
      'notifier:dashboardName': `${stackName}-dashboard`,
      'notifier:claimTimeoutSeconds': String(CHECK_CLAIM_TIMEOUT_SECONDS),
      'notifier:ledgerRetentionDays': String(CHECK_LEDGER_RETENTION_DAYS),
      // The reclaimer must find the planted claim within the check's deadline.
      'notifier:reclaimerScheduleMinutes': '1',
      // An account's own list is adopted, never created (SES allows one per account).
      ...(o.existingContactList !== undefined ? { 'notifier:createContactList': 'false', 'notifier:contactListName': listName } : {}),
    },
    sends,
    expected,
    alarm: alarmProbe(o.runId),
    reclaim,
    deadLetter: deadLetterProbe(o.runId),
  };
}

/** The country of the number the check texts (libphonenumber-js), or an error naming why there is none. */
function countryOfTestNumber(phone: string): string {
  const country = parsePhoneNumberFromString(phone)?.country;
  if (!country) throw new Error(`The SMS test number belongs to no country libphonenumber-js knows; give a real E.164 number`);
  return country;
}

/**
 * Outputs naming the queues the stack RETAINs on destroy (dead-lettered notifications, failed delivery-status
 * events, SES events the rule could not deliver, outcome and fallback batches given up on): the runner deletes them after `cdk destroy`, with the table and log groups.
 */
export const RETAINED_QUEUE_OUTPUTS = [
  'DeadLetterQueueUrl',
  // The bulk lane's (absent without lanes: the runner skips a missing output).
  'BulkDeadLetterQueueUrl',
  'StatusFailedEventQueueUrl',
  'SesEventQueueUrl',
  'SesEventDeadLetterQueueUrl',
  // With sesEventBridgeRule (absent otherwise).
  'SesEventRuleDeadLetterQueueUrl',
  // Stream batches the outcome publisher gave up on.
  'OutcomeFailedBatchQueueUrl',
  // Stream batches the fallback trigger gave up on.
  'FallbackFailedBatchQueueUrl',
  // With End User Messaging (absent otherwise).
  'SmsEventQueueUrl',
  'SmsEventDeadLetterQueueUrl',
] as const;

/** `cdk deploy` arguments for the plan (outputs written to `outputsFile`), with its context or the one given. */
export function deployArgs(plan: AwsCheckPlan, outputsFile: string, context: Readonly<Record<string, string>> = plan.context): string[] {
  return [
    'cdk',
    'deploy',
    plan.stackName,
    '--require-approval',
    'never',
    '--no-notices',
    '--outputs-file',
    outputsFile,
    ...Object.entries(context).flatMap(([key, value]) => ['-c', `${key}=${value}`]),
  ];
}

/** `cdk destroy` arguments for the plan, with its context or the one given. */
export function destroyArgs(plan: AwsCheckPlan, context: Readonly<Record<string, string>> = plan.context): string[] {
  return [
    'cdk',
    'destroy',
    plan.stackName,
    '--force',
    '--no-notices',
    ...Object.entries(context).flatMap(([key, value]) => ['-c', `${key}=${value}`]),
  ];
}
