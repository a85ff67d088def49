import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { onFirstUse } from '../../functions/adapters/sqs-on-demand';
import { createDeadLetters, createRecordDeferral } from '../../functions/sender/queue-wiring';
import { startFakeSqs } from '../support/fake-sqs';

const created = vi.hoisted(() => ({ clients: 0 }));
vi.mock('../../functions/adapters/sqs-client', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../functions/adapters/sqs-client')>();
  return {
    newSqsClient: () => {
      created.clients += 1;
      return original.newSqsClient();
    },
  };
});

describe('onFirstUse', () => {
  it('loads once for every caller, also for calls made while the load is under way', async () => {
    const load = vi.fn(async () => ({ loaded: true }));
    const get = onFirstUse(load);
    expect(load).not.toHaveBeenCalled();
    const [a, b] = await Promise.all([get(), get()]);
    expect(await get()).toBe(a);
    expect(b).toBe(a);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('a failed load is tried again on the next call, not remembered as failed', async () => {
    const load = vi.fn<() => Promise<string>>().mockRejectedValueOnce(new Error('first load failed')).mockResolvedValue('second');
    const get = onFirstUse(load);
    await expect(get()).rejects.toThrow('first load failed');
    await expect(get()).resolves.toBe('second');
    await expect(get()).resolves.toBe('second');
    expect(load).toHaveBeenCalledTimes(2);
  });
});

describe('SQS is loaded when a record first needs it', () => {
  const sqs: { server?: Awaited<ReturnType<typeof startFakeSqs>> } = {};
  beforeAll(async () => {
    sqs.server = await startFakeSqs();
    vi.stubEnv('AWS_ENDPOINT_URL_SQS', sqs.server.endpoint);
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await sqs.server?.close();
  });

  it('no client at wiring; one client for the first dead letter, kept for every later one; backoff loads its own on its first use', async () => {
    const queueUrl = `${sqs.server!.endpoint}/000000000000/notifier-dlq`;
    const deadLetters = createDeadLetters({ deadLetterQueueUrl: queueUrl });
    const deferral = createRecordDeferral({ sourceQueueUrl: queueUrl });
    expect(created.clients).toBe(0);

    const letter = { body: '{}', reason: 'SchemaViolation', detail: 'eventId: required', sourceMessageId: 'm-1' } as const;
    await deadLetters!.deadLetter(letter);
    expect(created.clients).toBe(1);
    expect(sqs.server!.sent()).toHaveLength(1);

    await deadLetters!.deadLetter({ ...letter, sourceMessageId: 'm-2' });
    expect(created.clients).toBe(1);
    // The fake answers only SendMessage: the refusal shows the backoff's request reached it.
    await expect(deferral!.defer('receipt-1', 30)).rejects.toThrow(/unsupported AmazonSQS.ChangeMessageVisibility/);
    expect(created.clients).toBe(2);
    expect(sqs.server!.sent().map((m) => m.MessageAttributes['notifier.sourceMessageId']?.StringValue)).toEqual(['m-1', 'm-2']);
  });
});
