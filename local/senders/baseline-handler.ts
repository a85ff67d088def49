import type { SQSBatchItemFailure } from 'aws-lambda';
import pLimit from 'p-limit';
import type { DeadLetterSink } from '../../functions/core/queue/dead-letter-sink';
import { InvalidEventError } from '../../functions/core/errors';
import { buildMessageClassRegistry } from '../../functions/core/policy/message-class';
import { parseNotificationBody } from '../../functions/core/event/notification-event';
import { repositoryTemplates } from '../../functions/adapters/template-directory';
import { planMessages, type MessagePlan } from '../../functions/delivery/message-plan';
import type { BatchHandler } from '../lambda-event-source';
import type { SenderPorts } from './sender-under-test';

/** Delivers one planned message; `true` when it may be acknowledged. */
export type DeliverOne = (plan: MessagePlan) => Promise<boolean>;

/**
 * The record loop the baselines share with the real sender's behaviour: parse, dead-letter
 * invalid events, fan out with the same planner and templates, bounded concurrency, and a
 * batch item failure for every record with a message not done. Only `deliver` differs.
 */
export function baselineHandler(
  ports: Pick<SenderPorts, 'sendsPerInvocation' | 'templates'>,
  deadLetters: DeadLetterSink,
  deliver: DeliverOne,
  beforeInvocation: (context: Parameters<BatchHandler>[1]) => void = () => undefined,
): BatchHandler {
  const classes = buildMessageClassRegistry();
  const templates = ports.templates ?? repositoryTemplates();
  return async (event, context) => {
    beforeInvocation(context);
    const limit = pLimit(ports.sendsPerInvocation);
    const failures: SQSBatchItemFailure[] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        try {
          const parsed = parseNotificationBody(record.body).event;
          const messageClass = classes.get(parsed.messageClass);
          if (!messageClass) throw new InvalidEventError('UnknownMessageClass', parsed.messageClass);
          const plans = planMessages(parsed, messageClass, templates);
          const done = await Promise.all(plans.map((plan) => limit(() => deliver(plan).catch(() => false))));
          if (done.some((ok) => !ok)) failures.push({ itemIdentifier: record.messageId });
        } catch (error) {
          if (!(error instanceof InvalidEventError)) throw error;
          await deadLetters.deadLetter({ body: record.body, reason: error.reason, detail: error.detail, sourceMessageId: record.messageId });
        }
      }),
    );
    return { batchItemFailures: failures };
  };
}

/** Metric dimensions of a plan, as the real sender uses them. */
export function dimensionsOf(plan: MessagePlan): { channel: MessagePlan['identity']['channel']; messageClass: string } {
  return { channel: plan.identity.channel, messageClass: plan.messageClass.name };
}
