import { setTimeout as sleep } from 'node:timers/promises';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { InvocationMeter } from '../../bench/latency/invocation-meter';
import { ExecutionEnvironment } from '../../local/execution-environment';
import { lambdaContext, type BatchHandler } from '../../local/lambda-event-source';
import type { SenderUnderTest } from '../../local/senders/sender-under-test';

const record = (id: string, body: string) => ({ messageId: id, body }) as SQSRecord;
const event: SQSEvent = { Records: [record('a', 'xx'), record('b', 'é'), record('c', 'yyyy')] };

function senderWith(handler: BatchHandler): SenderUnderTest {
  return { name: 'this-sender', description: 'test', setup: async () => undefined, createHandler: () => handler };
}

describe('the invocation meter', () => {
  it('records each invocation\'s handler time, records, payload bytes and failed records', async () => {
    const meter = new InvocationMeter();
    const handler = meter.wrap(
      senderWith(async () => {
        await sleep(30);
        return { batchItemFailures: [{ itemIdentifier: 'b' }] };
      }),
    ).createHandler(new ExecutionEnvironment('t'));
    const response = await handler(event, lambdaContext(Date.now() + 1000));
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'b' }]);
    expect(meter.invocations).toHaveLength(1);
    const [i] = meter.invocations;
    expect(i?.durationMs).toBeGreaterThanOrEqual(29);
    expect(i?.durationMs).toBeLessThan(1000);
    expect(i).toMatchObject({ records: 3, payloadBytes: 2 + 2 + 4, failedRecords: 1, threw: false });
  });

  it('records a handler that threw as every record failed, and passes the error on', async () => {
    const meter = new InvocationMeter();
    const handler = meter.wrap(
      senderWith(async () => {
        throw new Error('whole batch');
      }),
    ).createHandler(new ExecutionEnvironment('t'));
    await expect(handler(event, lambdaContext(Date.now() + 1000))).rejects.toThrow('whole batch');
    expect(meter.invocations[0]).toMatchObject({ records: 3, failedRecords: 3, threw: true });
  });
});
