import { describe, expect, it } from 'vitest';
import { coveringIdentities, identityCovers } from '../../lib/email-from';
import { errorOf, synth } from './helpers';

describe('the SES identities that cover a From address', () => {
  it('are the address, its domain and every parent domain down to two labels', () => {
    expect(coveringIdentities('notify@mail.eu.acme.com')).toEqual(['notify@mail.eu.acme.com', 'mail.eu.acme.com', 'eu.acme.com', 'acme.com']);
    expect(coveringIdentities('a@acme.com')).toEqual(['a@acme.com', 'acme.com']);
  });

  it('match case-insensitively, and never a sibling or a child domain', () => {
    expect(identityCovers('ACME.com', 'notify@mail.acme.com')).toBe(true);
    expect(identityCovers('notify@mail.acme.com', 'notify@mail.acme.com')).toBe(true);
    expect(identityCovers('shop.acme.com', 'notify@mail.acme.com')).toBe(false);
    expect(identityCovers('eu.mail.acme.com', 'notify@mail.acme.com')).toBe(false);
    expect(identityCovers('cme.com', 'notify@mail.acme.com')).toBe(false);
    expect(identityCovers('other@mail.acme.com', 'notify@mail.acme.com')).toBe(false);
  });
});

describe('ses:SendEmail without sesIdentity', () => {
  it('is granted on the From address and on each of its parent domains', () => {
    const { template } = synth({ emailFrom: 'Shop <notify@mail.acme-shop.io>' });
    const body = JSON.stringify(template.toJSON());
    for (const identity of ['notify@mail.acme-shop.io', 'mail.acme-shop.io', 'acme-shop.io']) {
      expect(body).toContain(`:identity/${identity}"`);
    }
    expect(body).not.toContain(':identity/io"');
    expect(body).not.toContain('identity/*');
  });
});

describe('a given sesIdentity', () => {
  it('is accepted when it is a parent domain of the From address', () => {
    expect(() => synth({ sesIdentity: 'acme-shop.io', emailFrom: 'notify@mail.acme-shop.io' })).not.toThrow();
  });

  it('fails the synth when it does not cover the From address, naming both and the identities that would', () => {
    expect(errorOf({ sesIdentity: 'shop.acme-shop.io', emailFrom: 'Shop <notify@mail.acme-shop.io>' })).toMatch(
      /sesIdentity \(shop\.acme-shop\.io\) does not cover emailFrom \(notify@mail\.acme-shop\.io\): it must be that address or one of its domains \(mail\.acme-shop\.io, acme-shop\.io\)/,
    );
  });
});
