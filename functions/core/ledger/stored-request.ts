import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import * as v from 'valibot';
import type { RenderedMessage } from '../templates/rendered-message';
import { describeProblems, validate } from '../schema';

/**
 * What a ledger row keeps of its rendered message, so the reclaimer can send it without the event.
 *
 * Only a claim the reclaimer may have to finish keeps it: one that carries the pending-index entry
 * (stale-claim-discovery.ts). Any other claim's message is still in the queue, and its next receive
 * renders it again; so a first delivery's claim holds identifiers only.
 *
 * The message is kept **packed**: one format byte, then the message's JSON compressed with brotli
 * (`node:zlib`). Shop e-mails are table layouts with the same inline styles on every cell: a 90 KB
 * order confirmation packs into 6.5 KB, 7 write units per write instead of 89 (docs/design/ledger.md, "What
 * a discoverable claim keeps", has the candidates measured). Rows written before packing keep the
 * plain message (a map); both are read.
 */
export type StoredRequest = RenderedMessage | PackedRequest;

/** A packed message: {@link PACKED_FORMAT} then brotli-compressed UTF-8 JSON of a {@link RenderedMessage}. */
export type PackedRequest = Uint8Array;

/** The format byte of a packed message; a later format gets the next number, and every reader keeps reading this one. */
export const PACKED_FORMAT = 1;
const FORMAT = Buffer.of(PACKED_FORMAT);

/**
 * Brotli quality 5: at 90 KB it packs within 2.5% of quality 9 (the same write units) for a tenth of the CPU or less (about 1 ms),
 * and 10-17% smaller than quality 4 or deflate (1-2 units less). Decompression costs well under a millisecond whatever the quality.
 */
const BROTLI_QUALITY = 5;

/**
 * Largest packed message a row keeps: DynamoDB refuses items over 400 KB, and the rest of a row (ids at
 * their schema maxima, lease, failure reason, delivery status) stays well under the 16 KB left.
 */
export const MAX_PACKED_REQUEST_BYTES = 384 * 1024;

/** Longest message JSON a packed message may unpack to: a guard against a damaged value, far above any template's output. */
const MAX_UNPACKED_BYTES = 8 * 1024 * 1024;

/** The rendered request, as rows keep it for a resend (a row read is checked against it field by field). */
export const RenderedMessageSchema = v.variant('channel', [
  v.object({ channel: v.literal('email'), to: v.string(), subject: v.string(), text: v.string(), html: v.optional(v.string()), timeZone: v.optional(v.string()) }),
  v.object({ channel: v.literal('sms'), to: v.string(), text: v.string(), timeZone: v.optional(v.string()) }),
  v.object({ channel: v.literal('push'), to: v.string(), title: v.string(), text: v.string(), validForSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))), timeZone: v.optional(v.string()) }),
]);

export type Packing = { readonly ok: true; readonly packed: PackedRequest } | { readonly ok: false; readonly reason: string };

/**
 * The packed form of `message`, or why a row cannot keep it (larger than {@link MAX_PACKED_REQUEST_BYTES}
 * packed: an e-mail of 100,000 characters of HTML in a script that does not compress). Deterministic:
 * the same message always packs to the same bytes. Pure.
 */
export function packRequest(message: RenderedMessage, maxBytes: number = MAX_PACKED_REQUEST_BYTES): Packing {
  // Text mode and a size hint were measured to pack the order confirmations to the same bytes: left out.
  const packed = Buffer.concat([FORMAT, brotliCompressSync(JSON.stringify(message), { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } })]);
  if (packed.length > maxBytes) return { ok: false, reason: `RequestTooLargeToStore: ${packed.length} bytes packed, over the ${maxBytes} a row keeps` };
  // A plain Uint8Array, as the SDK reads a binary attribute back: a row claimed and the row read compare equal.
  return { ok: true, packed: new Uint8Array(packed.buffer, packed.byteOffset, packed.length) };
}

export type Unpacking = { readonly ok: true; readonly message: RenderedMessage } | { readonly ok: false; readonly reason: string };

/**
 * The message a row keeps, in either layout: packed, or the plain message of a row written before
 * packing. A damaged or unknown packed value is an answer with a reason (never an address or content).
 */
export function unpackRequest(stored: StoredRequest): Unpacking {
  if (!(stored instanceof Uint8Array)) return { ok: true, message: stored };
  if (stored[0] !== PACKED_FORMAT) {
    return { ok: false, reason: `StoredRequestUnreadable: unknown packed format ${String(stored[0])}` };
  }
  let json: string;
  try {
    json = brotliDecompressSync(stored.subarray(1), { maxOutputLength: MAX_UNPACKED_BYTES }).toString('utf8');
  } catch (error) {
    return { ok: false, reason: `StoredRequestUnreadable: ${error instanceof Error ? error.message : String(error)}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { ok: false, reason: 'StoredRequestUnreadable: the unpacked message is not JSON' };
  }
  const checked = validate(RenderedMessageSchema, parsed);
  if (!checked.success) return { ok: false, reason: `StoredRequestUnreadable: ${describeProblems(checked.problems, 3)}` };
  return { ok: true, message: checked.output };
}
