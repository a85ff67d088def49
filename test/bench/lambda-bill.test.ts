import { describe, expect, it } from 'vitest';
import type { MeteredInvocation } from '../../bench/latency/invocation-meter';
import { billRun, type RunMeasure } from '../../bench/latency/lambda-bill';

const invocation = (over: Partial<MeteredInvocation> = {}): MeteredInvocation => ({
  durationMs: 100,
  cpuMs: 0,
  records: 10,
  payloadBytes: 10_000,
  failedRecords: 0,
  threw: false,
  endedAtMs: 0,
  ...over,
});

const NO_DYNAMO = {
  requests: 0,
  reads: 0,
  writes: 0,
  byOperation: {},
  conditionalFailures: 0,
  conditionalFailuresWithoutItem: 0,
  capacityUnits: 0,
  responsesWithCapacity: 0,
  gsiWriteUnits: 0,
};

const measure = (over: Partial<RunMeasure> = {}): RunMeasure => ({
  messages: 20,
  queueMessages: 20,
  invocations: [invocation()],
  timedOutInvocations: 0,
  functionTimeoutMs: 10_000,
  memoryMb: 512,
  dynamo: NO_DYNAMO,
  changeVisibilityRequests: 0,
  ...over,
});

describe('the Lambda, DynamoDB and SQS bill of a run', () => {
  it('bills each invocation rounded up to the millisecond, times the memory', () => {
    const f = billRun(measure({ invocations: [invocation({ durationMs: 100.2 }), invocation({ durationMs: 99.5 })] }));
    // 101 + 100 ms at 0.5 GB = 0.1005 GB-s for 20 messages.
    expect(f.gbSecondsPerMillion).toBe(5025);
    expect(f.messagesPerSecondPerInstance).toBe(99.5);
    expect(f.invocations).toBe(2);
  });

  it('bills an invocation killed at the function timeout in full, with a receive and no delete', () => {
    const f = billRun(measure({ invocations: [], timedOutInvocations: 1 }));
    expect(f.gbSecondsPerMillion).toBe(250_000);
    expect(f.sqs).toEqual({ receive: 0.05, delete: 0, changeVisibility: 0, total: 0.05 });
  });

  it('counts a receive per 64 KB of the batch and a delete only for a batch with an acknowledged record', () => {
    const f = billRun(
      measure({
        invocations: [
          invocation({ payloadBytes: 70_000 }),
          invocation({ failedRecords: 10 }),
          invocation({ threw: true, failedRecords: 10 }),
          invocation({ failedRecords: 3 }),
        ],
        changeVisibilityRequests: 2,
      }),
    );
    // Receives 2 + 1 + 1 + 1, deletes 1 + 0 + 0 + 1, visibility 2: 9 requests for 20 messages.
    expect(f.sqs).toEqual({ receive: 0.25, delete: 0.1, changeVisibility: 0.1, total: 0.45 });
    expect(f.usdPerMillion.sqs).toBe(0.18);
  });

  it('bills write units with the GSI writes and drops the read dynalite needs after a failed condition', () => {
    const f = billRun(measure({ dynamo: { ...NO_DYNAMO, requests: 70, writes: 40, reads: 30, conditionalFailuresWithoutItem: 10, gsiWriteUnits: 4 } }));
    expect(f.dynamo).toEqual({ writeUnits: 2.2, readUnits: 1, requests: 3 });
    // 2.2 x $0.625 + 1 x $0.125 per million.
    expect(f.usdPerMillion.dynamo).toBe(1.5);
  });

  it('adds CPU time slowed to the memory size\'s vCPU share for the CPU-share figures', () => {
    const f = billRun(measure({ invocations: [invocation({ durationMs: 100, cpuMs: 10 })] }));
    // 100 ms + 10 ms x (1769 / 512 - 1) = 124.55 ms.
    expect(f.atMemoryCpuShare.messagesPerSecondPerInstance).toBeCloseTo(20 / 0.12455, 0);
  });
});
