import type { EmailTenantsOptions } from './email-tenant-props';

/**
 * E-mail through SES v2: the From address, the identity sent as, the configuration set. Validated by
 * `emailFromViolations` and `sesIdentityViolations` (lib/email-from.ts).
 */
export interface EmailProps {
  /**
   * The From address of every e-mail, e.g. `notifications@mail.yourcompany.com` or
   * `Your Company <notifications@mail.yourcompany.com>`. Its address or its domain must be a verified SES identity.
   * Synth fails on a reserved domain (`example.com/.net/.org`, `.test`, `.invalid`, `.localhost`, `.example`):
   * SES would reject every e-mail.
   */
  readonly emailFrom: string;
  /**
   * SES identity the sender may send as (`ses:SendEmail` is granted on it only): the From address or one of its
   * domains. Synth fails when it does not cover `emailFrom`.
   * @default - the From address and each of its parent domains (`a@mail.acme.com`, `mail.acme.com`, `acme.com`):
   * SES sends as whichever of them is verified
   */
  readonly sesIdentity?: string;
  /**
   * Name of an existing SES configuration set every e-mail is sent with (both lanes: their tenants then share its
   * reputation metrics). The delivery-event destination is added to it unless `sesEventDestination` is false.
   * @default - a configuration set is created per lane (reputation metrics on, TLS required: see `sesRequireTls`),
   * so each lane's tenant has bounce and complaint rates of its own
   */
  readonly sesConfigurationSetName?: string;
  /**
   * Require TLS between SES and the receiving mail server (`DeliveryOptions.TlsPolicy: REQUIRE`) on the created
   * configuration set: a server that cannot take TLS gets no e-mail (SES reports a bounce) rather than a login
   * code in clear text. Set false to let SES fall back to an unencrypted connection. Not applied to an existing
   * configuration set (`sesConfigurationSetName`), whose owner sets it.
   * @default true
   */
  readonly sesRequireTls?: boolean;
  /**
   * The SES tenant of each lane: every `SendEmail` names its class's lane's tenant, each tenant holds the From
   * identity (`sesIdentity`, else the From address's domain) and its lane's configuration set, has its own
   * reputation policy and its own suppression list (lib/ses-tenants.ts).
   * @default - a tenant created per lane: urgent `standard`, bulk `strict`, suppression `TENANT`
   */
  readonly sesTenants?: EmailTenantsOptions;
}
