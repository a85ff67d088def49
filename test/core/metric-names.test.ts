import { describe, expect, it } from 'vitest';
import { DIMENSION, METRIC, METRICS_NAMESPACE, SERVICE } from '../../functions/core/metric-names';

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
