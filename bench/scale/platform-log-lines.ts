/**
 * The system log records Lambda itself writes to a function's log group per invocation, in the JSON log format the
 * stack sets (`loggingFormat: JSON`, lib/notifier-function.ts) at the default system log level (INFO, the stack sets
 * none): their shapes as AWS documents them, filled with this stack's values, so their bytes can be counted.
 *
 * - Which records: at INFO "Lambda automatically sends "start" and "report" log messages" (Lambda developer guide,
 *   "Log-level filtering", monitoring-cloudwatchlogs-log-level.html). Its "System log level event mapping" puts
 *   `platform.start` and a successful `platform.report` at INFO, a successful `platform.runtimeDone` at DEBUG (not
 *   written at INFO) and `platform.initStart` at INFO when it carries a runtime version (a cold start only); that table
 *   as the Neaox/overcast emulator's tests reproduce it, the search having returned the page's text without it.
 * - Their shapes: "Lambda Telemetry API Event schema reference" (telemetry-schema-reference.html): `time`, `type` and a
 *   `record` of `requestId` and `version` (start), `requestId`, `metrics` (durationMs, billedDurationMs, memorySizeMB,
 *   maxMemoryUsedMB, initDurationMs on a cold start) and `status` (report). No `tracing`: the stack enables no X-Ray.
 */

/** What an invocation puts in its records. */
export interface PlatformLineValues {
  /** The invocation's duration, ms (Lambda writes up to 3 decimals). */
  readonly durationMs: number;
  readonly memorySizeMb: number;
  /** Largest memory the environment used, MB: only its digits count here. */
  readonly maxMemoryUsedMb: number;
  /** A cold start: the report gains initDurationMs and an initStart record comes first. */
  readonly coldStart?: { readonly initDurationMs: number; readonly functionName: string; readonly runtimeVersion: string };
}

// Values of the width Lambda writes them: an ISO time to the millisecond, a UUID request id, the unqualified
// function's version (the event source mapping invokes $LATEST), a runtime version ARN's 64-character hash.
const TIME = '2026-12-01T12:00:00.123Z';
const REQUEST_ID = '6d68ca91-49c9-448d-89b8-7ca3e6dc66aa';
const VERSION = '$LATEST';
const RUNTIME_VERSION_ARN_HASH = 'a'.repeat(64);

const millis = (ms: number) => Math.round(ms * 1000) / 1000;

/** The records one invocation writes, in order. */
export function platformLogRecords(values: PlatformLineValues): readonly object[] {
  const cold = values.coldStart;
  const initStart = cold && {
    time: TIME,
    type: 'platform.initStart',
    record: {
      initializationType: 'on-demand',
      phase: 'init',
      runtimeVersion: cold.runtimeVersion,
      runtimeVersionArn: `arn:aws:lambda:us-east-1::runtime:${RUNTIME_VERSION_ARN_HASH}`,
      functionName: cold.functionName,
      functionVersion: VERSION,
    },
  };
  const start = { time: TIME, type: 'platform.start', record: { requestId: REQUEST_ID, version: VERSION } };
  const report = {
    time: TIME,
    type: 'platform.report',
    record: {
      requestId: REQUEST_ID,
      metrics: {
        durationMs: millis(values.durationMs),
        billedDurationMs: Math.ceil(values.durationMs),
        memorySizeMB: values.memorySizeMb,
        maxMemoryUsedMB: values.maxMemoryUsedMb,
        ...(cold ? { initDurationMs: millis(cold.initDurationMs) } : {}),
      },
      status: 'success',
    },
  };
  return initStart ? [initStart, start, report] : [start, report];
}

/** UTF-8 bytes of the records, each one compact JSON log event (as Lambda writes them). */
export function platformLogBytes(values: PlatformLineValues): number {
  return platformLogRecords(values).reduce((bytes, record) => bytes + Buffer.byteLength(JSON.stringify(record)), 0);
}
