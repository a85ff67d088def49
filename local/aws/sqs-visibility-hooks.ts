import type { buildApp } from 'fauxqs';
import type { VisibilityLimit, VisibilityRefusal } from './sqs-visibility-limit';

type FauxqsApp = ReturnType<typeof buildApp>;

const JSON_CONTENT = 'application/x-amz-json-1.0';
/** The query-protocol error header beside the JSON error (the v3 SDK names the error from it), as fauxqs words its own InvalidParameterValue. */
const QUERY_ERROR = 'AWS.SimpleQueueService.InvalidParameterValue;Sender';

/** The parts of fastify's request and reply the hooks use. */
interface HookRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
}
interface HookReply {
  code(status: number): HookReply;
  header(name: string, value: string): HookReply;
  send(payload: unknown): HookReply;
}

interface BatchEntry {
  readonly Id?: unknown;
  readonly ReceiptHandle?: unknown;
  readonly VisibilityTimeout?: unknown;
}
interface BatchFailure {
  readonly Id: string;
  readonly SenderFault: true;
  readonly Code: 'InvalidParameterValue';
  readonly Message: string;
}

/**
 * Puts `limit` in front of fauxqs: every ReceiveMessage answer records its receipt handles with the time the
 * request arrived, and a ChangeMessageVisibility (or a batch entry) that would end past 12 hours from that receive
 * is refused as SQS refuses it, before fauxqs sees it.
 */
export function enforceVisibilityLimit(app: FauxqsApp, limit: VisibilityLimit): void {
  const receiveStartedAt = new WeakMap<object, number>();
  const batchFailures = new WeakMap<object, BatchFailure[]>();

  app.addHook('preHandler', async (request: HookRequest, reply: HookReply) => {
    const body = request.body as Record<string, unknown> | undefined;
    switch (actionOf(request.headers['x-amz-target'])) {
      case 'ReceiveMessage':
        receiveStartedAt.set(request, limit.now());
        return;
      case 'ChangeMessageVisibility': {
        const refusal = refusalOf(limit, body ?? {});
        if (refusal) return reply.code(400).header('content-type', JSON_CONTENT).header('x-amzn-query-error', QUERY_ERROR).send(refusal);
        return;
      }
      case 'ChangeMessageVisibilityBatch': {
        const entries = Array.isArray(body?.Entries) ? (body.Entries as BatchEntry[]) : [];
        const failed: BatchFailure[] = [];
        const kept = entries.filter((entry) => {
          const refusal = refusalOf(limit, entry);
          if (refusal) failed.push({ Id: String(entry.Id), SenderFault: true, Code: 'InvalidParameterValue', Message: refusal.message });
          return !refusal;
        });
        if (failed.length === 0) return;
        if (kept.length === 0) return reply.code(200).header('content-type', JSON_CONTENT).send({ Successful: [], Failed: failed });
        (body as { Entries: BatchEntry[] }).Entries = kept;
        batchFailures.set(request, failed);
        return;
      }
      default:
        return;
    }
  });

  app.addHook('onSend', async (request: HookRequest, _reply: unknown, payload: unknown) => {
    if (typeof payload !== 'string') return payload;
    const startedAt = receiveStartedAt.get(request);
    if (startedAt !== undefined) {
      const messages = (parsed(payload)?.Messages ?? []) as { ReceiptHandle?: unknown }[];
      limit.received(messages.map((m) => m.ReceiptHandle).filter((h): h is string => typeof h === 'string'), startedAt);
      return payload;
    }
    const failed = batchFailures.get(request);
    if (!failed) return payload;
    const answer = parsed(payload) ?? {};
    return JSON.stringify({ ...answer, Failed: [...((answer.Failed as unknown[] | undefined) ?? []), ...failed] });
  });
}

function actionOf(target: string | string[] | undefined): string | undefined {
  return typeof target === 'string' ? target.replace(/^AmazonSQS\./, '') : undefined;
}

function refusalOf(limit: VisibilityLimit, request: BatchEntry): VisibilityRefusal | undefined {
  const { ReceiptHandle: handle, VisibilityTimeout: seconds } = request;
  return typeof handle === 'string' && typeof seconds === 'number' ? limit.check(handle, seconds) : undefined;
}

function parsed(payload: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(payload);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
