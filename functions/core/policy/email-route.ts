/**
 * Where SES sends an e-mail from: the SES tenant (`TenantName`) and the configuration set of the lane its class
 * goes in. A message's route is a function of its class alone, so the urgent and bulk senders and the reclaimer's
 * resends (which handle both lanes' rows) always name the same tenant for the same message: a marketing e-mail
 * counts against the bulk tenant's reputation, wherever it is sent from.
 */
export interface EmailRoute {
  /** `SendEmail`'s `TenantName`. @default none: the account's reputation and suppression list */
  readonly tenantName?: string;
  /** `SendEmail`'s `ConfigurationSetName`. @default none */
  readonly configurationSetName?: string;
}

/** The routes of a stack's lanes. */
export interface EmailRouting {
  /** The urgent lane's route (every class not in `bulk.classes`); without lanes, the one lane's. */
  readonly urgent: EmailRoute;
  /** The bulk lane's route and its classes. @default none: every class takes the urgent route */
  readonly bulk?: EmailRoute & { readonly classes: readonly string[] };
}

/** The route of an e-mail of `messageClass`. */
export function emailRouteFor(messageClass: string, routing: EmailRouting): EmailRoute {
  const bulk = routing.bulk;
  if (bulk && bulk.classes.includes(messageClass)) return { tenantName: bulk.tenantName, configurationSetName: bulk.configurationSetName };
  return routing.urgent;
}
