import { describe, expect, it } from 'vitest';
import { DIMENSION, METRIC, METRICS_NAMESPACE, METRICS_NAMESPACE_VARIABLE, SERVICE, metricsNamespaceFrom, metricsNamespaceProblem } from '../../../functions/core/observability/metric-names';

// Dashboards, alarms made outside the stack and the runbook's queries name these strings: a rename
// is a breaking change, never a refactor. Each name is spelled as its key.
describe('metric, service and dimension names are a published contract', () => {
  it.each([
    ['METRIC', METRIC],
    ['SERVICE', SERVICE],
    ['DIMENSION', DIMENSION],
  ] as const)('%s: every name is its own key', (_, names) => {
    for (const [key, name] of Object.entries(names)) expect(name).toBe(key);
  });

  it('metrics are emitted in the IdempotentNotifier namespace', () => {
    expect(METRICS_NAMESPACE).toBe('IdempotentNotifier');
  });
});

describe('a metrics namespace', () => {
  it.each(['IdempotentNotifier/Shop/Notifier', 'a', 'Shop Notifications:prod #1', 'x'.repeat(255), 'a.b-c_d'])('accepts %s', (namespace) => {
    expect(metricsNamespaceProblem(namespace)).toBeUndefined();
  });

  it.each(['', 'x'.repeat(256), 'shop|orders', 'caf\u00e9'])('refuses %j as CloudWatch would', (namespace) => {
    expect(metricsNamespaceProblem(namespace)).toMatch(/must be 1-255 letters, digits, spaces or/);
  });

  it('refuses the AWS/ prefix, which is reserved', () => {
    expect(metricsNamespaceProblem('AWS/Shop')).toBe('metrics namespace (AWS/Shop) must not start with AWS/ (reserved for AWS)');
    expect(metricsNamespaceProblem('AWSShop')).toBeUndefined();
  });

  it('is read from POWERTOOLS_METRICS_NAMESPACE, the default only when it is unset or empty', () => {
    expect(metricsNamespaceFrom({ [METRICS_NAMESPACE_VARIABLE]: 'Shop/N' })).toBe('Shop/N');
    expect(metricsNamespaceFrom({ [METRICS_NAMESPACE_VARIABLE]: '' })).toBe(METRICS_NAMESPACE);
    expect(() => metricsNamespaceFrom({ [METRICS_NAMESPACE_VARIABLE]: 'a|b' })).toThrow(/^POWERTOOLS_METRICS_NAMESPACE: metrics namespace/);
  });
});
