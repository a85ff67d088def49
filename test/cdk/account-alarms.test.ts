import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { METRIC } from '../../functions/core/observability/metric-names';
import { LEDGER_TABLE } from '../../functions/core/ledger/ledger-table';
import { ALARM, type AlarmName } from '../../lib/notifier-alarms';
import { logicalId, propertiesOf, synth } from './helpers';

const { stack, template } = synth();
const n = stack.notifier;
const alarmProps = (name: AlarmName, s = stack, t = template): Record<string, unknown> => {
  const alarm = s.notifier.alarms[name];
  if (!alarm) throw new Error(`no alarm ${name}`);
  return propertiesOf(t, alarm);
};
const configurationSetRef = { Ref: logicalId(n.configurationSet) };
const tableRef = { Ref: logicalId(n.table) };

describe('SES reputation alarms (the stack\'s configuration set)', () => {
  it('SesBounceRate fires when Reputation.BounceRate passes 2% in an hour, well before the 5% review', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', Match.objectLike({
      Namespace: 'AWS/SES',
      MetricName: 'Reputation.BounceRate',
      Dimensions: [{ Name: 'ses:configuration-set', Value: configurationSetRef }],
      Statistic: 'Maximum',
      Period: 3600,
      Threshold: 0.02,
      ComparisonOperator: 'GreaterThanThreshold',
    }));
  });

  it('SesComplaintRate fires when Reputation.ComplaintRate passes 0.05%, half the 0.1% review threshold', () => {
    expect(alarmProps(ALARM.sesComplaintRate)).toMatchObject({
      Namespace: 'AWS/SES',
      MetricName: 'Reputation.ComplaintRate',
      Dimensions: [{ Name: 'ses:configuration-set', Value: configurationSetRef }],
      Threshold: 0.0005,
    });
  });

  it('takes both rates from props', () => {
    const s = synth({ alarms: { sesBounceRatePercent: 3, sesComplaintRatePercent: 0.08 } });
    expect(alarmProps(ALARM.sesBounceRate, s.stack, s.template)).toMatchObject({ Threshold: 0.03 });
    expect(alarmProps(ALARM.sesComplaintRate, s.stack, s.template)).toMatchObject({ Threshold: 0.0008 });
  });

  it('fails if a rate is not a percentage above 0 and below 100', () => {
    expect(() => synth({ alarms: { sesBounceRatePercent: 0 } })).toThrow(/alarms\.sesBounceRatePercent \(0\) must be a percentage above 0 and below 100/);
  });
});

describe('late bounce and complaint alarms (counted by the status Lambda)', () => {
  it('LateBounces fires on more than 10 LateBounce in an hour', () => {
    expect(alarmProps(ALARM.lateBounces)).toMatchObject({
      Namespace: n.metricsNamespace,
      MetricName: METRIC.LateBounce,
      Dimensions: [{ Name: 'service', Value: 'status' }],
      Statistic: 'Sum',
      Period: 3600,
      Threshold: 10,
    });
  });

  it('LateComplaints fires on any LateComplaint in an hour', () => {
    expect(alarmProps(ALARM.lateComplaints)).toMatchObject({
      Namespace: n.metricsNamespace,
      MetricName: METRIC.LateComplaint,
      Dimensions: [{ Name: 'service', Value: 'status' }],
      Period: 3600,
      Threshold: 0,
    });
  });

  it('fails if a count is not a whole number', () => {
    expect(() => synth({ alarms: { lateBouncesPerHour: 2.5 } })).toThrow(/alarms\.lateBouncesPerHour \(2\.5\) must be a whole number/);
  });
});

describe('ledger alarms', () => {
  it('LedgerErrors fires on any LedgerError of the sender or the reclaimer', () => {
    const metrics = alarmProps(ALARM.ledgerErrors)['Metrics'] as { Id: string; Expression?: string; MetricStat?: { Metric: unknown } }[];
    expect(metrics.find((m) => m.Expression)?.Expression).toBe('FILL(ledgerSender, 0) + FILL(ledgerReclaimer, 0)');
    expect(metrics.find((m) => m.Id === 'ledgerSender')?.MetricStat?.Metric).toEqual({
      Namespace: n.metricsNamespace,
      MetricName: METRIC.LedgerError,
      Dimensions: [{ Name: 'service', Value: 'sender' }],
    });
    expect(alarmProps(ALARM.ledgerErrors)).toMatchObject({ Threshold: 0, EvaluationPeriods: 1 });
  });

  it('LedgerThrottled sums read and write throttle events of the table and of each index', () => {
    const metrics = alarmProps(ALARM.ledgerThrottled)['Metrics'] as { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string; Dimensions: unknown[] } } }[];
    const stats = metrics.filter((m) => m.MetricStat).map((m) => m.MetricStat!.Metric);
    const dimensionSets = [
      [{ Name: 'TableName', Value: tableRef }],
      ...[LEDGER_TABLE.pendingIndex.name, LEDGER_TABLE.smsMessageIndex.name].map((index) => [
        { Name: 'GlobalSecondaryIndexName', Value: index },
        { Name: 'TableName', Value: tableRef },
      ]),
    ];
    for (const metricName of ['ReadThrottleEvents', 'WriteThrottleEvents']) {
      for (const dimensions of dimensionSets) {
        expect(stats).toContainEqual({ Namespace: 'AWS/DynamoDB', MetricName: metricName, Dimensions: expect.arrayContaining(dimensions) });
      }
    }
    expect(stats).toHaveLength(6);
    expect(metrics.find((m) => m.Expression)?.Expression?.split(' + ')).toHaveLength(6);
    expect(alarmProps(ALARM.ledgerThrottled)).toMatchObject({ Threshold: 0 });
  });
});

describe('SMS alarms', () => {
  it('SmsSuccessRate fires when the SMS success rate stays below 90% for two hours', () => {
    expect(alarmProps(ALARM.smsSuccessRate)).toMatchObject({
      Namespace: 'AWS/SNS',
      MetricName: 'SMSSuccessRate',
      Statistic: 'Average',
      Period: 3600,
      Threshold: 0.9,
      EvaluationPeriods: 2,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('exist only with SMS enabled', () => {
    const off = synth({ smsEnabled: false, smsMonthlySpendLimitUsd: undefined }).stack.notifier.alarms;
    expect(off[ALARM.smsSuccessRate]).toBeUndefined();
    expect(off[ALARM.smsMonthToDateSpend]).toBeUndefined();
    expect(off[ALARM.invalidEvent]).toBeDefined();
  });
});
