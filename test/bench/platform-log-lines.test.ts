import { describe, expect, it } from 'vitest';
import { platformLogBytes, platformLogRecords } from '../../bench/scale/platform-log-lines';

const WARM = { durationMs: 270.5061, memorySizeMb: 512, maxMemoryUsedMb: 160 };
const COLD = { ...WARM, coldStart: { initDurationMs: 450.512, functionName: 'f', runtimeVersion: 'nodejs:24.v12' } };

describe('Lambda system records per invocation, as docs/scale.md prices them (JSON format, system log level INFO)', () => {
  it('a warm invocation writes platform.start and platform.report with the documented members, no runtimeDone (DEBUG)', () => {
    const [start, report, ...rest] = platformLogRecords(WARM) as { type: string; record: Record<string, unknown> }[];
    expect(rest).toEqual([]);
    expect(start).toMatchObject({ type: 'platform.start', record: { version: '$LATEST' } });
    expect(Object.keys(start!.record).sort()).toEqual(['requestId', 'version']);
    expect(report).toMatchObject({
      type: 'platform.report',
      record: { status: 'success', metrics: { durationMs: 270.506, billedDurationMs: 271, memorySizeMB: 512, maxMemoryUsedMB: 160 } },
    });
    expect(report!.record.metrics).not.toHaveProperty('initDurationMs');
  });

  it('a cold start adds platform.initStart and the report\'s initDurationMs', () => {
    const records = platformLogRecords(COLD) as { type: string; record: { metrics?: object } }[];
    expect(records.map((r) => r.type)).toEqual(['platform.initStart', 'platform.start', 'platform.report']);
    expect(records[2]!.record.metrics).toHaveProperty('initDurationMs', 450.512);
  });

  it('counts each record as one compact JSON log event, in UTF-8 bytes', () => {
    const compact = (values: typeof WARM) => platformLogRecords(values).map((r) => JSON.stringify(r)).join('').length;
    expect(platformLogBytes(WARM)).toBe(compact(WARM));
    expect(platformLogBytes(COLD)).toBeGreaterThan(platformLogBytes(WARM));
  });
});
