import { describe, expect, it } from 'vitest';
import { METRIC } from '../../functions/core/observability/metric-names';
import { ALARM } from '../../lib/alarm-table';
import { propertiesOf, synth } from './helpers';

type MetricDataQuery = { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: unknown }[] } } };

/** The alarm's metric queries: each metric as `service/messageClass/channel`, and the expression summing them. */
function queriesOf(properties: Record<string, unknown>): { expression: string | undefined; metrics: string[] } {
  const queries = properties['Metrics'] as MetricDataQuery[];
  const metrics = queries.flatMap((q) => {
    if (!q.MetricStat) return [];
    const dim = (name: string) => String(q.MetricStat!.Metric.Dimensions.find((d) => d.Name === name)?.Value);
    return [`${q.MetricStat.Metric.MetricName} ${dim('service')}/${dim('messageClass')}/${dim('channel')}`];
  });
  return { expression: queries.find((q) => q.Expression)?.Expression, metrics: metrics.sort() };
}

describe("each SES tenant's sending status and reputation, watched", () => {
  it('pages when SES refuses the bulk tenant\'s e-mail: ProviderConfigurationFault of each bulk class, e-mail, from the sender and the reclaimer', () => {
    const { stack, template } = synth({ messageClasses: [{ name: 'digest', onAmbiguous: 'give-up' }], lanes: { bulkClasses: ['marketing', 'digest'] } });
    const alarm = stack.notifier.alarms[ALARM.sesBulkTenantRefusing];
    expect(alarm).toBeDefined();
    const properties = propertiesOf(template, alarm!);
    expect(properties).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', TreatMissingData: 'notBreaching' });
    const { expression, metrics } = queriesOf(properties);
    const fault = METRIC.ProviderConfigurationFault;
    expect(metrics).toEqual(
      [`${fault} reclaimer/digest/email`, `${fault} reclaimer/marketing/email`, `${fault} sender/digest/email`, `${fault} sender/marketing/email`].sort(),
    );
    // Every one of them counts: a refusal of either class, from either function, pages.
    expect(expression?.split(' + ')).toHaveLength(4);
  });

  it('has no bulk tenant alarm without lanes (one tenant: ProviderConfigurationFault pages for it)', () => {
    const { stack } = synth({ lanes: false });
    expect(stack.notifier.alarms[ALARM.sesBulkTenantRefusing]).toBeUndefined();
    expect(stack.notifier.alarms[ALARM.providerConfigurationFault]).toBeDefined();
  });

  it("graphs each tenant on the dashboard: its configuration set's bounce and complaint rates, and the bulk tenant's refused e-mails", () => {
    const { stack, template } = synth();
    const body = JSON.stringify(stack.resolve(propertiesOf(template, stack.notifier.dashboard)['DashboardBody']));
    for (const lane of ['urgent', 'bulk']) expect(body).toContain(`SES tenant of the ${lane} lane: bounce and complaint rates, e-mails refused`);
    const sets = [stack.notifier.configurationSet, stack.notifier.bulkConfigurationSet!].map((set) => JSON.stringify(stack.resolve(set.configurationSetName)));
    for (const set of sets) {
      for (const rate of ['Reputation.BounceRate', 'Reputation.ComplaintRate']) {
        expect(body, `${rate} of ${set}`).toMatch(new RegExp(`AWS/SES\\\\",\\\\"${rate.replace('.', '\\.')}\\\\",\\\\"ses:configuration-set\\\\",\\\\"",${escapeRegExp(set)}`));
      }
    }
    expect(body).toContain('e-mails refused for configuration (a paused tenant)');
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
