import { brotliCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../../functions/core/templates/rendered-message';
import { MAX_PACKED_REQUEST_BYTES, PACKED_FORMAT, packRequest, unpackRequest } from '../../../functions/core/ledger/stored-request';

const EMAIL: RenderedMessage = {
  channel: 'email',
  to: 'buyer@example.com',
  subject: 'Commande 1001 confirmée — merci',
  text: 'Bonjour Zoë,\n\nvotre commande est confirmée. 注文ありがとうございます 🎉',
  html: '<p style="color:#1f2328">Bonjour Zoë, <b>merci</b> 🎉</p>'.repeat(40),
};

function packed(message: RenderedMessage): Uint8Array {
  const packing = packRequest(message);
  if (!packing.ok) throw new Error(packing.reason);
  return packing.packed;
}

describe('a message packed for the reclaimer', () => {
  it.each<[string, RenderedMessage]>([
    ['an HTML e-mail in several scripts', EMAIL],
    ['an e-mail without an HTML part', { channel: 'email', to: 'a@example.com', subject: 's', text: 't' }],
    ['an SMS', { channel: 'sms', to: '+14155550101', text: 'Your code is 482913' }],
    ['a push', { channel: 'push', to: 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/app/1', title: 'Shipped', text: 'On its way' }],
    // A sign-in code's validity: a reclaimer's resend without it would show a stale code for the class's whole push lifetime.
    ['a push that says how long it stays true', { channel: 'push', to: 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/app/1', title: 'Code', text: '482913', validForSeconds: 300 }],
    // Quiet hours are in the recipient's time: a reclaimer's resend of a held text must still know it.
    ['an SMS with the recipient’s time zone', { channel: 'sms', to: '+14155550101', text: 'Sale ends tonight', timeZone: 'America/Chicago' }],
    ['a push with the recipient’s time zone', { channel: 'push', to: 'arn:aws:sns:us-east-1:123456789012:endpoint/GCM/app/1', title: 'Sale', text: 'Ends tonight', timeZone: 'Europe/Berlin' }],
    // A producer's string may be ill-formed: JSON escapes a lone surrogate, so it comes back as it went in.
    ['an e-mail holding a lone surrogate', { channel: 'email', to: 'a@example.com', subject: 'x\ud800y', text: '\udfff', html: '<p>\ud83d</p>' }],
  ])('unpacks to the same message, part for part: %s', (_what, message) => {
    const unpacked = unpackRequest(packed(message));
    expect(unpacked).toEqual({ ok: true, message });
    if (unpacked.ok) for (const [part, value] of Object.entries(message)) expect((unpacked.message as Record<string, unknown>)[part]).toBe(value);
  });

  it('is the format byte, then brotli of the JSON: what rows written today hold, readable by every later reader', () => {
    const bytes = packed(EMAIL);
    expect(PACKED_FORMAT).toBe(1);
    expect(bytes[0]).toBe(1);
    const handMade = new Uint8Array([1, ...brotliCompressSync(Buffer.from(JSON.stringify(EMAIL)))]);
    expect(unpackRequest(handMade)).toEqual({ ok: true, message: EMAIL });
  });

  it('is the same bytes every time for the same message, and far smaller than its JSON', () => {
    expect(Buffer.from(packed(EMAIL)).equals(Buffer.from(packed({ ...EMAIL })))).toBe(true);
    expect(packed(EMAIL).length).toBeLessThan(Buffer.byteLength(JSON.stringify(EMAIL)) / 4);
  });

  it('a row written before packing holds the plain message, which is read as it is', () => {
    expect(unpackRequest(EMAIL)).toEqual({ ok: true, message: EMAIL });
  });

  it('larger than a row keeps is refused with a reason that gives the sizes, never the content', () => {
    const size = packed(EMAIL).length;
    expect(packRequest(EMAIL, size)).toMatchObject({ ok: true });
    const refused = packRequest(EMAIL, size - 1);
    expect(refused).toEqual({ ok: false, reason: `RequestTooLargeToStore: ${size} bytes packed, over the ${size - 1} a row keeps` });
    expect(MAX_PACKED_REQUEST_BYTES).toBe(384 * 1024);
  });

  it.each<[string, Uint8Array, RegExp]>([
    ['an unknown format byte', new Uint8Array([2, ...brotliCompressSync(Buffer.from(JSON.stringify(EMAIL)))]), /^StoredRequestUnreadable: unknown packed format 2$/],
    ['damaged bytes', new Uint8Array([1, 0xff, 0x00, 0x13, 0x37]), /^StoredRequestUnreadable: /],
    ['brotli of something other than JSON', new Uint8Array([1, ...brotliCompressSync(Buffer.from('<p>hi</p>'))]), /^StoredRequestUnreadable: the unpacked message is not JSON$/],
    ['more than 8 MB once unpacked (a damaged value, never a template\'s output)', new Uint8Array([1, ...brotliCompressSync(Buffer.alloc(9 * 1024 * 1024, 0x20))]), /^StoredRequestUnreadable: /],
    ['JSON of something other than a message', new Uint8Array([1, ...brotliCompressSync(Buffer.from(JSON.stringify({ channel: 'sms', to: '+1555' })))]), /^StoredRequestUnreadable: text: /],
  ])('%s is an answer with a reason, never an exception or an address', (_what, bytes, reason) => {
    const unpacked = unpackRequest(bytes);
    expect(unpacked).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
    expect(JSON.stringify(unpacked)).not.toContain('+1555');
  });
});
