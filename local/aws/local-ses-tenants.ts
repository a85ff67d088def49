/**
 * The SES tenants a local SES knows, as the stack creates them: each with the configuration sets associated with
 * it, and a sending status an operator (or SES's reputation policy) can pause.
 *
 * What SES does, and where it says so:
 * - `SendEmail`'s `TenantName`: "The email sending operation will only succeed if all referenced resources
 *   (identities, configuration sets, and templates) are associated with this tenant" (SES API v2 reference,
 *   SendEmail request, TenantName). A tenant that does not exist is a resource that does not exist:
 *   `NotFoundException` (HTTP 404), one of SendEmail's documented errors.
 * - A paused tenant (`SendingStatus: DISABLED`, API_Tenant; set by SES's reputation policy or by
 *   `UpdateReputationEntityCustomerManagedStatus`): its sends are refused with `SendingPausedException` (HTTP 400),
 *   SendEmail's documented error for sending that "is currently paused". The API reference names no
 *   tenant-specific error, so this stand-in answers the documented one.
 */

/** One tenant the stack created. */
export interface LocalSesTenant {
  readonly tenantName: string;
  /** The configuration sets associated with it (the identity is not checked locally). */
  readonly configurationSets: readonly string[];
}

/** Why a send naming a tenant is refused, as SES v2 answers it; undefined when it is accepted. */
export interface TenantRefusal {
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

/** The tenants of a local SES and their sending status. */
export class LocalSesTenants {
  private readonly paused = new Set<string>();
  private readonly byName: ReadonlyMap<string, LocalSesTenant>;

  /** @param tenants undefined: no tenant is checked (a send may name any) */
  constructor(private readonly tenants: readonly LocalSesTenant[] | undefined) {
    this.byName = new Map((tenants ?? []).map((t) => [t.tenantName, t]));
  }

  /** SES's answer to a `SendEmail` naming `tenantName` (or none) and `configurationSetName`. */
  refusal(tenantName: string | undefined, configurationSetName: string | undefined): TenantRefusal | undefined {
    if (tenantName === undefined || this.tenants === undefined) return undefined;
    const tenant = this.byName.get(tenantName);
    if (!tenant) return { status: 404, type: 'NotFoundException', message: `Tenant ${tenantName} does not exist.` };
    if (configurationSetName !== undefined && !tenant.configurationSets.includes(configurationSetName)) {
      return { status: 404, type: 'NotFoundException', message: `Configuration set ${configurationSetName} is not associated with tenant ${tenantName}.` };
    }
    if (this.paused.has(tenantName)) return { status: 400, type: 'SendingPausedException', message: `Sending is paused for tenant ${tenantName}.` };
    return undefined;
  }

  /** Pauses a tenant's sending, as SES's reputation policy (or an operator) does. */
  pause(tenantName: string): void {
    if (!this.byName.has(tenantName)) throw new Error(`no local SES tenant ${tenantName}`);
    this.paused.add(tenantName);
  }

  /** Reinstates a paused tenant. */
  resume(tenantName: string): void {
    this.paused.delete(tenantName);
  }
}
