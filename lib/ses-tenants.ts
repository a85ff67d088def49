import { ArnFormat, Aws, Names, Stack } from 'aws-cdk-lib';
import * as ses from 'aws-cdk-lib/aws-ses';
import { Construct, type IConstruct } from 'constructs';
import {
  REPUTATION_POLICIES,
  SUPPRESSION_SCOPES,
  type EmailTenantOptions,
  type EmailTenantsOptions,
  type ReputationPolicyName,
} from './props/email-tenant-props';

/** A lane's name as the tenants know it. */
export type TenantLane = 'urgent' | 'bulk' | 'single';

/**
 * The default reputation policy of each lane's tenant:
 * - `bulk` `strict`: a newsletter's complaints pause the newsletter early, long before they could bring the
 *   account under review; a paused bulk tenant stops marketing mail only.
 * - `urgent` `standard`: login codes stop only on a high-impact finding (`strict` would pause them on a low one,
 *   `none` would leave a bad urgent stream to pull the whole account under review).
 */
export const DEFAULT_REPUTATION_POLICY: Readonly<Record<TenantLane, ReputationPolicyName>> = { urgent: 'standard', single: 'standard', bulk: 'strict' };

/** Tenant names SES accepts (AWS::SES::Tenant `TenantName`: up to 64 letters, digits, `-` and `_`). */
const TENANT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Every option of `sesTenants` that cannot work, each with the value given. */
export function emailTenantViolations(options: EmailTenantsOptions | undefined, lanesEnabled: boolean): string[] {
  if (!options) return [];
  const violations: string[] = [];
  if (!lanesEnabled && options.bulk) violations.push('sesTenants.bulk needs lanes (lanes: false has one tenant: sesTenants.urgent)');
  for (const [lane, tenant] of Object.entries(options) as [string, EmailTenantOptions | undefined][]) {
    if (!tenant) continue;
    const name = tenant.tenantName;
    if (name !== undefined && !TENANT_NAME.test(name)) {
      violations.push(`sesTenants.${lane}.tenantName (${name}) must be 1-64 letters, digits, - or _ (AWS::SES::Tenant TenantName)`);
    }
    if (tenant.existing && name === undefined) violations.push(`sesTenants.${lane}.existing needs the tenantName of the existing tenant`);
    if (tenant.reputationPolicy !== undefined && !(REPUTATION_POLICIES as readonly string[]).includes(tenant.reputationPolicy)) {
      violations.push(`sesTenants.${lane}.reputationPolicy (${String(tenant.reputationPolicy)}) must be one of ${REPUTATION_POLICIES.join(', ')}`);
    }
    if (tenant.suppressionScope !== undefined && !(SUPPRESSION_SCOPES as readonly string[]).includes(tenant.suppressionScope)) {
      violations.push(`sesTenants.${lane}.suppressionScope (${String(tenant.suppressionScope)}) must be TENANT or ACCOUNT`);
    }
    if (tenant.existing && (tenant.reputationPolicy !== undefined || tenant.suppressionScope !== undefined)) {
      violations.push(`sesTenants.${lane}: an existing tenant keeps its own reputationPolicy and suppressionScope (its owner sets them)`);
    }
  }
  const urgentName = options.urgent?.tenantName;
  if (urgentName !== undefined && urgentName === options.bulk?.tenantName) {
    violations.push(`sesTenants.urgent and sesTenants.bulk name the same tenant (${urgentName}): a blast could then pause login codes`);
  }
  return violations;
}

/** One lane's sending resources: what every `SendEmail` of the lane names, so what its tenant must hold. */
export interface TenantLaneInput {
  readonly lane: TenantLane;
  /** Name of the lane's configuration set. */
  readonly configurationSetName: string;
  /** @default - created with the lane's defaults */
  readonly options?: EmailTenantOptions;
}

/** What {@link EmailTenants} builds the tenants from. */
export interface EmailTenantsProps {
  /** The SES identity every e-mail is sent as (an address or a domain). */
  readonly identity: string;
  /** The lanes, the urgent (or single) one first. */
  readonly lanes: readonly TenantLaneInput[];
}

/** One lane's tenant as the stack sends with it. */
export interface LaneTenant {
  readonly lane: TenantLane;
  /** The `TenantName` of every `SendEmail` of the lane. */
  readonly tenantName: string;
  /** The tenant, when this stack creates it (not for an existing one). */
  readonly tenant?: ses.CfnTenant;
  /** ARNs of what the lane's sends name (identity, configuration set): each must be associated with the tenant. */
  readonly sendResourceArns: readonly string[];
}

/**
 * An SES tenant per sender lane, associated with the identity and the lane's configuration set, with its reputation
 * policy and its own suppression list. SES refuses a `SendEmail` that names a resource its tenant does not hold, so
 * synth fails instead when a created tenant lacks one (checked on the template's own associations, after every
 * escape-hatch edit).
 */
export class EmailTenants extends Construct {
  public readonly tenants: readonly LaneTenant[];

  constructor(scope: Construct, id: string, props: EmailTenantsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const identityArn = sesArn(stack, 'identity', props.identity);
    this.tenants = props.lanes.map(({ lane, configurationSetName, options }) => {
      const sendResourceArns = [identityArn, sesArn(stack, 'configuration-set', configurationSetName)];
      if (options?.existing && options.tenantName) return { lane, tenantName: options.tenantName, sendResourceArns };
      const idPrefix = lane === 'bulk' ? 'Bulk' : lane === 'urgent' ? 'Urgent' : '';
      const tenantName = options?.tenantName ?? `${Names.uniqueResourceName(this, { maxLength: 57, separator: '-' })}-${lane}`;
      const policy = options?.reputationPolicy ?? DEFAULT_REPUTATION_POLICY[lane];
      const tenant = new ses.CfnTenant(this, `${idPrefix}Tenant`, {
        tenantName,
        resourceAssociations: sendResourceArns.map((resourceArn) => ({ resourceArn })),
        reputationEntity: { policy: { reputationEntityPolicy: reputationPolicyArn(policy) } },
        // SES adds an address to this list on a hard bounce or a complaint; TENANT keeps the list the tenant's own.
        suppressionAttributes: { suppressionScope: options?.suppressionScope ?? 'TENANT', suppressedReasons: ['BOUNCE', 'COMPLAINT'] },
      });
      return { lane, tenantName, tenant, sendResourceArns };
    });
    this.node.addValidation({ validate: () => missingAssociations(this, this.tenants) });
  }

  /** The tenant of `lane` (the urgent one for `single`). */
  tenantOf(lane: TenantLane): LaneTenant {
    const found = this.tenants.find((t) => t.lane === lane) ?? this.tenants[0];
    if (!found) throw new Error('EmailTenants: no tenant');
    return found;
  }

  /** Sending functions wait for the tenants: SES refuses a send naming a tenant that does not exist yet. */
  sendAfterTenants(fn: IConstruct): void {
    for (const { tenant } of this.tenants) if (tenant) fn.node.addDependency(tenant);
  }
}

/** The ARN of SES's managed reputation policy `name`. */
export function reputationPolicyArn(name: ReputationPolicyName): string {
  return `arn:${Aws.PARTITION}:ses:${Aws.REGION}:aws:reputation-policy/${name}`;
}

function sesArn(stack: Stack, resource: 'identity' | 'configuration-set', name: string): string {
  return stack.formatArn({ service: 'ses', resource, resourceName: name, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
}

/** Each created tenant's missing associations, read from the tenant as it will be synthesized. */
function missingAssociations(scope: IConstruct, tenants: readonly LaneTenant[]): string[] {
  const stack = Stack.of(scope);
  const text = (value: unknown) => JSON.stringify(stack.resolve(value));
  const problems: string[] = [];
  for (const { lane, tenant, sendResourceArns } of tenants) {
    if (!tenant) continue;
    const associations = stack.resolve(tenant.resourceAssociations) as readonly { ResourceArn?: unknown; resourceArn?: unknown }[] | undefined;
    const held = new Set((associations ?? []).map((a) => JSON.stringify(a.ResourceArn ?? a.resourceArn)));
    for (const arn of sendResourceArns) {
      if (!held.has(text(arn))) {
        problems.push(`the ${lane} lane's SES tenant does not hold ${text(arn)}, which its sends name: SES would refuse every one of them`);
      }
    }
  }
  return problems;
}
