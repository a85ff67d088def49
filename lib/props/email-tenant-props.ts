/**
 * SES tenants: one per sender lane, so a marketing blast's bounces and complaints pause, review and suppress
 * only the bulk tenant and never a login code. Resolved and validated by lib/ses-tenants.ts.
 */

/** SES's managed reputation policies of a tenant (`arn:<partition>:ses:<region>:aws:reputation-policy/<name>`). */
export const REPUTATION_POLICIES = ['none', 'standard', 'strict'] as const;
export type ReputationPolicyName = (typeof REPUTATION_POLICIES)[number];

/** Which suppression list a tenant's sends are checked against and its bounces and complaints added to. */
export const SUPPRESSION_SCOPES = ['TENANT', 'ACCOUNT'] as const;
export type SuppressionScopeName = (typeof SUPPRESSION_SCOPES)[number];

/** One lane's SES tenant. */
export interface EmailTenantOptions {
  /**
   * Name of the tenant: up to 64 letters, digits, `-` and `_`. With `existing`, the name of a tenant made elsewhere.
   * @default - a name unique to this stack and lane
   */
  readonly tenantName?: string;
  /**
   * The tenant exists already (`tenantName` names it): this stack creates no tenant and no associations, and its
   * owner must associate the From identity and the lane's configuration set with it, or SES refuses every send.
   * @default false
   */
  readonly existing?: boolean;
  /**
   * SES's reputation policy of the tenant: what SES does on its own when the tenant's reputation findings rise
   * (`none`: nothing; `standard`: pauses it on a high-impact finding; `strict`: pauses it on a lower one too).
   * Not applied to an existing tenant.
   * @default 'standard' for the urgent (or single) lane, 'strict' for the bulk lane
   */
  readonly reputationPolicy?: ReputationPolicyName;
  /**
   * `TENANT`: the tenant keeps its own suppression list, so a complaint on marketing mail suppresses that address
   * for marketing only. `ACCOUNT`: the account's list, shared with every other tenant. Not applied to an existing tenant.
   * @default 'TENANT'
   */
  readonly suppressionScope?: SuppressionScopeName;
}

/** The SES tenants of the lanes. Without lanes (`lanes: false`) the one lane takes `urgent`'s options. */
export interface EmailTenantsOptions {
  /**
   * The urgent lane's tenant (codes, order updates).
   * @default - created, reputation policy `standard`, suppression `TENANT`
   */
  readonly urgent?: EmailTenantOptions;
  /**
   * The bulk lane's tenant (marketing).
   * @default - created, reputation policy `strict`, suppression `TENANT`
   */
  readonly bulk?: EmailTenantOptions;
}
