import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../functions/core/sender-config';
import { build, errorOf, resolveDummy, resourcesOfType, synth, TEST_EMAIL_DOMAIN } from './helpers';

const TENANT = 'AWS::SES::Tenant';
const policyArn = (name: string) => Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([`:aws:reputation-policy/${name}`])]) });

describe('an SES tenant per lane', () => {
  it('creates two tenants: urgent standard, bulk strict, each with its own suppression list', () => {
    const { template } = synth();
    template.resourceCountIs(TENANT, 2);
    for (const [lane, policy] of [['urgent', 'standard'], ['bulk', 'strict']] as const) {
      template.hasResourceProperties(TENANT, {
        TenantName: Match.stringLikeRegexp(`-${lane}$`),
        ReputationEntity: { Policy: { ReputationEntityPolicy: policyArn(policy) } },
        SuppressionAttributes: { SuppressionScope: 'TENANT', SuppressedReasons: ['BOUNCE', 'COMPLAINT'] },
      });
    }
  });

  it('associates each tenant with the From domain and its own lane configuration set', () => {
    const { template, stack } = synth();
    const tenants = Object.values(resourcesOfType(template, TENANT));
    const associations = tenants.map((t) => (t['ResourceAssociations'] as { ResourceArn: unknown }[]).map((a) => JSON.stringify(a.ResourceArn)));
    for (const arns of associations) {
      expect(arns.some((a) => a.includes(`:identity/${TEST_EMAIL_DOMAIN}`))).toBe(true);
      expect(arns.some((a) => a.includes('configuration-set/'))).toBe(true);
    }
    const urgentSet = stack.resolve(stack.notifier.configurationSet.configurationSetName) as unknown;
    const bulkSet = stack.resolve(stack.notifier.bulkConfigurationSet?.configurationSetName) as unknown;
    expect(bulkSet).toBeDefined();
    expect(JSON.stringify(bulkSet)).not.toEqual(JSON.stringify(urgentSet));
    const [urgent, bulk] = associations;
    expect(urgent?.join()).toContain(JSON.stringify(urgentSet));
    expect(bulk?.join()).toContain(JSON.stringify(bulkSet));
  });

  it('gives every Lambda the urgent tenant and the bulk route (tenant, configuration set, classes)', () => {
    const { stack } = synth();
    for (const env of [...stack.notifier.lanes.map((l) => l.environment), stack.notifier.environment]) {
      const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, resolveDummy(stack.resolve(v))]));
      expect(resolved[ENV.sesTenantName]).toMatch(/-urgent$/);
      expect(resolved[ENV.sesBulkTenantName]).toMatch(/-bulk$/);
      expect(resolved[ENV.sesBulkClasses]).toBe('marketing');
      expect(resolved[ENV.sesBulkConfigurationSet]).toBeTruthy();
    }
  });

  it('takes the names, policies and scopes a deployment gives', () => {
    const { template } = synth({
      sesTenants: { urgent: { tenantName: 'shop-codes', reputationPolicy: 'none' }, bulk: { tenantName: 'shop-news', suppressionScope: 'ACCOUNT' } },
    });
    template.hasResourceProperties(TENANT, { TenantName: 'shop-codes', ReputationEntity: { Policy: { ReputationEntityPolicy: policyArn('none') } } });
    template.hasResourceProperties(TENANT, { TenantName: 'shop-news', SuppressionAttributes: Match.objectLike({ SuppressionScope: 'ACCOUNT' }) });
  });

  it('creates no tenant for an existing one, and sends with its name', () => {
    const { template, stack } = synth({ sesTenants: { bulk: { tenantName: 'newsletter-tenant', existing: true } } });
    template.resourceCountIs(TENANT, 1);
    expect(stack.notifier.environment[ENV.sesBulkTenantName]).toBe('newsletter-tenant');
  });

  it('has one tenant without lanes', () => {
    const { template, stack } = synth({ lanes: false });
    template.resourceCountIs(TENANT, 1);
    expect(stack.notifier.environment[ENV.sesBulkTenantName]).toBeUndefined();
  });

  it('fails if a tenant lacks an association its sends name (an escape-hatch edit)', () => {
    const stack = build();
    stack.notifier.emailTenants.tenantOf('urgent').tenant!.resourceAssociations = [];
    expect(() => Template.fromStack(stack)).toThrow(/urgent lane's SES tenant does not hold .*identity/);
  });

  it('fails on tenant options that cannot work, each named with its value', () => {
    const message = errorOf({
      sesTenants: {
        urgent: { tenantName: 'codes!', reputationPolicy: 'lenient' as never },
        bulk: { existing: true, suppressionScope: 'GLOBAL' as never },
      },
    });
    expect(message).toContain('sesTenants.urgent.tenantName (codes!) must be 1-64 letters');
    expect(message).toContain('sesTenants.urgent.reputationPolicy (lenient) must be one of none, standard, strict');
    expect(message).toContain('sesTenants.bulk.existing needs the tenantName');
    expect(message).toContain('sesTenants.bulk.suppressionScope (GLOBAL) must be TENANT or ACCOUNT');
    expect(errorOf({ sesTenants: { urgent: { tenantName: 'same' }, bulk: { tenantName: 'same' } } })).toContain('name the same tenant (same)');
  });
});
