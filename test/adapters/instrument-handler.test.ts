import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLambdaObservability, instrumentHandler } from '../../functions/adapters/lambda-observability';
import { METRIC } from '../../functions/core/observability/metric-names';

// What every Lambda's wrapper does around its handler (issue 50 dropped middy for Powertools' documented manual
// calls; these pin the behaviour both give): the Lambda context in each log line, the counts flushed and the EMF
// published after every invocation, also a failed one, and a TimeoutError shortly before Lambda's own timeout.

function context(remainingMs = 30_000): Context {
  const deadline = Date.now() + remainingMs;
  return {
    functionName: 'sender',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:sender',
    memoryLimitInMB: '512',
    awsRequestId: 'request-1',
    logGroupName: '/aws/lambda/sender',
    logStreamName: 'stream',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** Every JSON line written to stdout while `run` runs. */
async function stdoutLines(run: () => Promise<unknown>): Promise<Array<Record<string, unknown>>> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await run().catch(() => undefined);
  } finally {
    spy.mockRestore();
  }
  return written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const emfOf = (lines: Array<Record<string, unknown>>) => lines.filter((line) => '_aws' in line);

describe('instrumentHandler, around every Lambda handler', () => {
  afterEach(() => vi.useRealTimers());

  it('puts the Lambda context in each log line of the invocation', async () => {
    const observability = createLambdaObservability('sender', {});
    const handler = instrumentHandler(async () => {
      observability.log.info('inside');
      return 'done';
    }, observability);
    const lines = await stdoutLines(() => handler({}, context()));
    expect(lines.find((line) => line.message === 'inside')).toMatchObject({ function_request_id: 'request-1', function_name: 'sender' });
  });

  it('returns what the handler returns, then publishes the counts flushed after it', async () => {
    const observability = createLambdaObservability('sender', {});
    const order: string[] = [];
    const handler = instrumentHandler(
      async () => {
        observability.metrics.count(METRIC.RecordBackedOff);
        return 'done';
      },
      {
        ...observability,
        flushMetrics: () => {
          order.push('flush');
          observability.flushMetrics();
        },
      },
    );
    let result: unknown;
    const lines = await stdoutLines(async () => {
      result = await handler({}, context());
    });
    expect(result).toBe('done');
    expect(order).toEqual(['flush']);
    expect(emfOf(lines)).toHaveLength(1);
    expect(emfOf(lines)[0]).toHaveProperty(METRIC.RecordBackedOff, 1);
  });

  it('publishes the counts of an invocation that throws, and rethrows its error', async () => {
    const observability = createLambdaObservability('sender', {});
    const handler = instrumentHandler(async () => {
      observability.metrics.count(METRIC.RecordBackedOff);
      throw new Error('ledger down');
    }, observability);
    let thrown: unknown;
    const lines = await stdoutLines(() => handler({}, context()).catch((error: unknown) => (thrown = error)));
    expect(thrown).toMatchObject({ message: 'ledger down' });
    expect(emfOf(lines)[0]).toHaveProperty(METRIC.RecordBackedOff, 1);
  });

  it('fails the invocation with a TimeoutError 5 ms before Lambda would time it out, and still publishes its counts', async () => {
    const observability = createLambdaObservability('sender', {});
    const handler = instrumentHandler(async () => {
      observability.metrics.count(METRIC.RecordBackedOff);
      return new Promise<never>(() => undefined);
    }, observability);
    let thrown: unknown;
    const started = Date.now();
    const lines = await stdoutLines(() => handler({}, context(60)).catch((error: unknown) => (thrown = error)));
    expect(thrown).toMatchObject({ name: 'TimeoutError' });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(emfOf(lines)[0]).toHaveProperty(METRIC.RecordBackedOff, 1);
  });

  it('leaves a faked global clock alone: a test that advances it (test/interleavings does, whenever every actor waits) never fires Lambda\'s deadline', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let release: (value: string) => void = () => undefined;
    const handler = instrumentHandler(() => new Promise<string>((resolve) => (release = resolve)), {});
    const result = handler({}, context(30_000));
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(60_000);
    release('done');
    await expect(result).resolves.toBe('done');
  });
});
