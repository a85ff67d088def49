import type { Channel } from './idempotency-key';
import type { Recipient } from './notification-event';

const E164 = /^\+[1-9]\d{6,14}$/;
const SNS_ENDPOINT_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:endpoint\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+\/[A-Za-z0-9-]+$/;
/**
 * ASCII dot-atoms of letters, digits and `_ ' + -` (no leading, trailing or double dot, no `'` last), `@`,
 * dotted labels not starting with `-`, a TLD of 2+ letters: zod 4's e-mail check, which this project used
 * before valibot (whose own refuses an apostrophe, as in o'brien@example.com).
 */
const EMAIL = /^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$/;

export type AddressResult = { readonly ok: true; readonly address: string } | { readonly ok: false; readonly reason: string };

/** The recipient's address for a channel, validated. Reasons never contain the address. */
export function addressFor(recipient: Recipient, channel: Channel): AddressResult {
  switch (channel) {
    case 'email':
      if (!recipient.email) return { ok: false, reason: 'InvalidAddress: no email address for channel email' };
      return EMAIL.test(recipient.email)
        ? { ok: true, address: recipient.email }
        : { ok: false, reason: 'InvalidAddress: email address is not valid' };
    case 'sms':
      if (!recipient.phone) return { ok: false, reason: 'InvalidAddress: no phone number for channel sms' };
      return E164.test(recipient.phone)
        ? { ok: true, address: recipient.phone }
        : { ok: false, reason: 'InvalidAddress: phone number is not E.164 (+ and 7 to 15 digits)' };
    case 'push':
      if (!recipient.pushEndpointArn) return { ok: false, reason: 'InvalidAddress: no push endpoint ARN for channel push' };
      return SNS_ENDPOINT_ARN.test(recipient.pushEndpointArn)
        ? { ok: true, address: recipient.pushEndpointArn }
        : { ok: false, reason: 'InvalidAddress: push endpoint is not an SNS platform endpoint ARN' };
  }
}

/** Masks an address for human output: `j***@example.com`, `+44*******89`. */
export function maskAddress(address: string): string {
  const at = address.indexOf('@');
  if (at > 0) return `${address[0]}***${address.slice(at)}`;
  if (address.startsWith('+')) return `${address.slice(0, 3)}${'*'.repeat(Math.max(address.length - 5, 0))}${address.slice(-2)}`;
  if (address.startsWith('arn:')) return `${address.slice(0, address.lastIndexOf('/') + 1)}***`;
  return '***';
}
