import { it } from 'vitest';
import { appWithNag } from './helpers';
it('nag', () => {
  const { app, nag } = appWithNag({ smsMonthlySpendLimitUsd: 5 });
  const report = nag.validateScope(app);
  console.log(JSON.stringify(report.violations.map(v => ({r: v.ruleName, s: v.severity, p: v.violatingResources.map(x => (x as {constructPath?: string}).constructPath)})), null, 1));
});
