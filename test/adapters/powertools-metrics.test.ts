import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PowertoolsMetricsRecorder } from '../../functions/adapters/powertools-metrics';
import { METRIC, METRICS_NAMESPACE } from '../../functions/core/observability/metric-names';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

interface Emf {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [key: string]: unknown;
}

describe('EMF output', () => {
  it('every count lands under the service dimension alone (alarms) and per channel/class (dashboards)', () => {
    vi.stubEnv('POWERTOOLS_DEV', 'true'); // log through the global console, which the test captures
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false'); // dev mode would otherwise switch metrics off
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      lines.push(String(line));
    });
    const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'sender' });
    const recorder = new PowertoolsMetricsRecorder(metrics);
    recorder.count(METRIC.Sent, { channel: 'sms', messageClass: 'otp' });
    recorder.count(METRIC.Sent, { channel: 'sms', messageClass: 'otp' });
    recorder.count(METRIC.Sent, { channel: 'email', messageClass: 'transactional' });
    recorder.flush();
    metrics.publishStoredMetrics();

    const blobs = lines.map((l) => JSON.parse(l) as Emf);
    const perDimension = blobs.filter((b) => b.channel !== undefined);
    expect(perDimension.map((b) => [b.channel, b.messageClass, b.Sent])).toEqual([
      ['sms', 'otp', 2],
      ['email', 'transactional', 1],
    ]);
    for (const blob of perDimension) {
      expect(blob._aws.CloudWatchMetrics[0]!.Dimensions[0]).toEqual(['service', 'channel', 'messageClass']);
    }
    const serviceLevel = blobs.find((b) => b.channel === undefined)!;
    expect(serviceLevel._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'IdempotentNotifier', Dimensions: [['service']] });
    expect(serviceLevel.service).toBe('sender');
    expect(serviceLevel.Sent).toEqual([1, 1, 1]);
  });
});
