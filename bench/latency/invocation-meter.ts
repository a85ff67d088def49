import { performance } from 'node:perf_hooks';
import type { ExecutionEnvironment } from '../../local/execution-environment';
import type { BatchHandler } from '../../local/lambda-event-source';
import type { SenderUnderTest } from '../../local/senders/sender-under-test';

/** One invocation that returned or threw (a killed one never does; the event source counts those). */
export interface MeteredInvocation {
  /** Handler time, what Lambda bills before rounding up to the millisecond. */
  readonly durationMs: number;
  /** CPU time of this process meanwhile (user + system); one environment at a time makes it the handler's. */
  readonly cpuMs: number;
  readonly records: number;
  /** Bytes of the batch's bodies: SQS bills a request per 64 KB of payload. */
  readonly payloadBytes: number;
  /** Records the response listed as failed; all of them when the handler threw. */
  readonly failedRecords: number;
  readonly threw: boolean;
  /** When it returned or threw (epoch ms). */
  readonly endedAtMs: number;
}

/** Times every invocation of the handlers a sender builds, as Lambda's billing would see them. */
export class InvocationMeter {
  readonly invocations: MeteredInvocation[] = [];

  /** The same sender, its handlers metered. */
  wrap(sender: SenderUnderTest): SenderUnderTest {
    return { ...sender, createHandler: (env: ExecutionEnvironment) => this.meter(sender.createHandler(env)) };
  }

  private meter(handler: BatchHandler): BatchHandler {
    return async (event, context) => {
      const started = performance.now();
      const cpu = process.cpuUsage();
      const note = (failedRecords: number, threw: boolean) => {
        const used = process.cpuUsage(cpu);
        this.invocations.push({
          durationMs: performance.now() - started,
          cpuMs: (used.user + used.system) / 1000,
          records: event.Records.length,
          payloadBytes: event.Records.reduce((n, r) => n + Buffer.byteLength(r.body), 0),
          failedRecords,
          threw,
          endedAtMs: Date.now(),
        });
      };
      try {
        const response = await handler(event, context);
        note(new Set(response.batchItemFailures.map((f) => f.itemIdentifier)).size, false);
        return response;
      } catch (error) {
        note(event.Records.length, true);
        throw error;
      }
    };
  }
}
