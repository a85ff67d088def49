/**
 * Domains no one can send from (RFC 2606 and RFC 6761): SES rejects every e-mail with `MessageRejected`,
 * which the sender classifies as permanent, so each message would end FAILED, silently.
 */
const RESERVED_DOMAINS = ['example.com', 'example.net', 'example.org'] as const;
const RESERVED_TLDS = ['test', 'invalid', 'localhost', 'example'] as const;

/** `Name <a@b.c>` or `a@b.c` -> `a@b.c`. */
export function emailAddressOf(from: string): string {
  const match = /<([^<>]+)>\s*$/.exec(from);
  return (match?.[1] ?? from).trim();
}

/** The part after the last `@`, or undefined when the address has no local part or no domain. */
export function domainOf(address: string): string | undefined {
  const at = address.lastIndexOf('@');
  return at < 1 || at === address.length - 1 ? undefined : address.slice(at + 1);
}

/** The reserved name `domain` falls under (e.g. `example.com` for `mail.example.com`), if any. */
export function reservedDomainOf(domain: string): string | undefined {
  const name = domain.toLowerCase().replace(/\.$/, '');
  const labels = name.split('.');
  const tld = labels[labels.length - 1] ?? '';
  if ((RESERVED_TLDS as readonly string[]).includes(tld)) return `.${tld}`;
  return RESERVED_DOMAINS.find((reserved) => name === reserved || name.endsWith(`.${reserved}`));
}

/** Every reason `emailFrom` cannot send, each naming the value; empty when it can. */
export function emailFromViolations(emailFrom: string | undefined): string[] {
  if (emailFrom === undefined || emailFrom.trim() === '') {
    return ['emailFrom is required: the From address of every e-mail, on an identity verified in SES'];
  }
  const address = emailAddressOf(emailFrom);
  const domain = domainOf(address);
  if (domain === undefined) return [`emailFrom (${address}) is not an e-mail address`];
  const reserved = reservedDomainOf(domain);
  if (reserved !== undefined) {
    return [
      `emailFrom (${emailFrom}) uses the reserved domain ${reserved}: SES rejects every e-mail from it ` +
        '(MessageRejected, a permanent failure); use an address on a domain verified in SES',
    ];
  }
  return [];
}

/**
 * The SES identities that can cover `address`: the address itself, then its domain and every parent domain
 * down to two labels (`a@mail.acme.com` -> `a@mail.acme.com`, `mail.acme.com`, `acme.com`). SES sends as the
 * identity that is verified, which may be any of these (a team often verifies only `acme.com`).
 */
export function coveringIdentities(address: string): string[] {
  const domain = domainOf(address);
  if (domain === undefined) return [address];
  const labels = domain.toLowerCase().replace(/\.$/, '').split('.');
  const domains = labels.slice(0, Math.max(1, labels.length - 1)).map((_, i) => labels.slice(i).join('.'));
  return [address, ...domains];
}

/** Whether the SES identity `identity` (an address or a domain) covers `address`, as SES matches them. */
export function identityCovers(identity: string, address: string): boolean {
  const wanted = identity.toLowerCase().replace(/\.$/, '');
  return coveringIdentities(address).some((candidate) => candidate.toLowerCase() === wanted);
}

/** Why `sesIdentity` cannot send as `emailFrom` (empty when it can, or when no identity is given). */
export function sesIdentityViolations(sesIdentity: string | undefined, emailFrom: string): string[] {
  if (sesIdentity === undefined) return [];
  const address = emailAddressOf(emailFrom);
  if (domainOf(address) === undefined) return [];
  return identityCovers(sesIdentity, address)
    ? []
    : [
        `sesIdentity (${sesIdentity}) does not cover emailFrom (${address}): it must be that address or one of its ` +
          `domains (${coveringIdentities(address).slice(1).join(', ')}), or SES refuses every e-mail (AccessDenied)`,
      ];
}
