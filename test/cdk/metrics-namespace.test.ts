import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { METRICS_NAMESPACE_VARIABLE, metricsNamespaceFrom } from '../../functions/core/observability/metric-names';
import { ENV } from '../../functions/core/sender-config';
import { IdempotentNotifier } from '../../lib/notifier';
import { NotifierStack } from '../../lib/notifier-stack';
import { BASE_PROPS, errorOf, newApp, propertiesOf, resourcesOfType, synth } from './helpers';

/** Metrics of the account, not of one notifier: every stack in the account sees the same value. */
const ACCOUNT_METRICS = new Set(['AWS/SNS SMSMonthToDateSpentUSD', 'AWS/SNS SMSSuccessRate']);

type MetricStat = { Namespace?: string; MetricName?: string; Dimensions?: unknown };
/**
 * Every metric an alarm reads (a single metric, or each MetricStat of a math expression), as one string each.
 * A dimension naming a resource of the stack ({Ref}, {Fn::GetAtt}) names that stack's resource: it is
 * qualified with the stack, as the deployed names would be.
 */
function alarmMetrics(stack: Stack): string[] {
  const template = Template.fromStack(stack);
  const qualified = (dimensions: unknown): string =>
    JSON.stringify(dimensions, (_key, value: unknown) =>
      value && typeof value === 'object' && ('Ref' in value || 'Fn::GetAtt' in value) ? `${stack.stackName}:${JSON.stringify(value)}` : value,
    );
  return Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')).flatMap((alarm) => {
    const stats: MetricStat[] = alarm['MetricName']
      ? [alarm as MetricStat]
      : ((alarm['Metrics'] as { MetricStat?: { Metric: MetricStat } }[]) ?? []).flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric] : []));
    return stats
      .filter((m) => !ACCOUNT_METRICS.has(`${m.Namespace} ${m.MetricName}`))
      .map((m) => `${m.Namespace} ${m.MetricName} ${qualified(m.Dimensions)}`);
  });
}

describe('metrics scoped to the notifier', () => {
  it('defaults to IdempotentNotifier/<stack name>/<construct path in the stack>', () => {
    expect(synth().stack.notifier.metricsNamespace).toBe('IdempotentNotifier/Test/Notifier');
  });

  it('gives every function its namespace in POWERTOOLS_METRICS_NAMESPACE, which the metrics adapter reads', () => {
    const { stack, template } = synth();
    const n = stack.notifier;
    expect(ENV.metricsNamespace).toBe(METRICS_NAMESPACE_VARIABLE);
    for (const fn of [n.senderFunction, n.reclaimerFunction, n.statusFunction]) {
      const variables = (propertiesOf(template, fn)['Environment'] as { Variables: Record<string, string> }).Variables;
      expect(variables[METRICS_NAMESPACE_VARIABLE]).toBe('IdempotentNotifier/Test/Notifier');
      expect(metricsNamespaceFrom(variables)).toBe('IdempotentNotifier/Test/Notifier');
    }
  });

  it('takes metricsNamespace from props', () => {
    const { stack, template } = synth({ metricsNamespace: 'Shop/Notifications' });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'Shop/Notifications', MetricName: 'InvalidEvent' });
    expect(stack.notifier.environment[METRICS_NAMESPACE_VARIABLE]).toBe('Shop/Notifications');
  });

  it('fails if metricsNamespace is not one CloudWatch accepts', () => {
    expect(errorOf({ metricsNamespace: 'AWS/Lambda' })).toMatch(/metrics namespace \(AWS\/Lambda\) must not start with AWS\//);
    expect(errorOf({ metricsNamespace: 'shop|orders' })).toMatch(/metrics namespace \("shop\|orders"\) must be 1-255 letters/);
  });

  it('gives two notifiers in one stack different namespaces', () => {
    const stack = new Stack(newApp(), 'Shared');
    const a = new IdempotentNotifier(stack, 'Orders', BASE_PROPS);
    const b = new IdempotentNotifier(stack, 'Logins', BASE_PROPS);
    expect([a.metricsNamespace, b.metricsNamespace]).toEqual(['IdempotentNotifier/Shared/Orders', 'IdempotentNotifier/Shared/Logins']);
  });

  it('two stacks in one app: their alarms share no metric (the SMS spend and success rate of the account aside)', () => {
    const app = newApp();
    const first = new NotifierStack(app, 'First', { notifier: BASE_PROPS });
    const second = new NotifierStack(app, 'Second', { notifier: BASE_PROPS });
    const a = alarmMetrics(first);
    const b = alarmMetrics(second);
    expect(a.length).toBeGreaterThan(20);
    expect(a.filter((metric) => b.includes(metric))).toEqual([]);
  });

  it('two stacks given the same metricsNamespace do share metrics (what the default prevents)', () => {
    const app = newApp();
    const props = { ...BASE_PROPS, metricsNamespace: 'Shared' };
    const first = new NotifierStack(app, 'First', { notifier: props });
    const second = new NotifierStack(app, 'Second', { notifier: props });
    const [a, b] = [alarmMetrics(first), alarmMetrics(second)];
    expect(a.filter((metric) => b.includes(metric)).length).toBeGreaterThan(10);
  });
});

describe('metricsNamespaceFrom (the functions, at cold start)', () => {
  it('falls back to IdempotentNotifier when run without one (locally)', () => {
    expect(metricsNamespaceFrom({})).toBe('IdempotentNotifier');
  });

  it('refuses a namespace CloudWatch would refuse, naming the variable', () => {
    expect(() => metricsNamespaceFrom({ [METRICS_NAMESPACE_VARIABLE]: 'AWS/SES' })).toThrow(/POWERTOOLS_METRICS_NAMESPACE: .*AWS\//);
  });
});
