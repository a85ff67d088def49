/**
 * `npx tsx bench/stored-request-candidates.ts`: how a discoverable claim could keep its message for the reclaimer,
 * measured on the order confirmation at about 2, 15 and 90 KB: the bytes each form takes, the claim item it makes
 * and the write units of its claim and outcome (the outcome is billed on the larger item, the claim's). Sizes are
 * exact; the CPU column is a median of a few runs on a shared machine, to tell milliseconds from tens of them.
 * Writes bench/results/stored-request-candidates.md. The choice and its reasons: docs/design/ledger.md, "What a
 * discoverable claim keeps".
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, constants, deflateRawSync, gzipSync } from 'node:zlib';
import { rowToItem } from '../functions/adapters/ledger-item';
import { newClaimRow } from '../functions/core/ledger/ledger-decision';
import { buildMessageClassRegistry } from '../functions/core/policy/message-class';
import type { RenderedMessage } from '../functions/core/templates/rendered-message';
import { packRequest } from '../functions/core/ledger/stored-request';
import { planMessages } from '../functions/delivery/message-plan';
import { itemBytes } from '../local/item-bytes';
import { quantile, round } from '../local/stats';
import { markdownTable, textTable } from '../local/text-table';
import { orderConfirmation, type OrderConfirmationSize } from './fixtures/order-confirmation';

const TIMING = { claimTimeoutMs: 120_000, retentionMs: 30 * 86_400_000 };
const RUNS = 15;
const transactional = buildMessageClassRegistry().get('transactional')!;

const brotli = (quality: number) => (json: Buffer) =>
  brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT, [constants.BROTLI_PARAM_SIZE_HINT]: json.length } });

/** A candidate: the bytes a row would keep for `message`, rendered from `data` (for the template-based ones). */
interface Candidate {
  readonly name: string;
  readonly keep: (message: RenderedMessage, data: Readonly<Record<string, unknown>>) => Uint8Array;
  /** Kept as the message itself (a map attribute), not as bytes: the layout rows had before. @default false */
  readonly asMap?: boolean;
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');
/** Template id (already in the row) + the event's data + the address + a SHA-256 of the rendered message, so a re-render is provably the same. */
const templateForm = (message: RenderedMessage, data: Readonly<Record<string, unknown>>) => ({
  to: message.to,
  data,
  digest: createHash('sha256').update(JSON.stringify(message)).digest('base64'),
});

const CANDIDATES: readonly Candidate[] = [
  { name: 'plain message (the map rows held before; bytes: its JSON)', keep: (m) => json(m), asMap: true },
  { name: 'deflate (raw, level 6)', keep: (m) => deflateRawSync(json(m)) },
  { name: 'gzip (level 6)', keep: (m) => gzipSync(json(m)) },
  { name: 'brotli quality 4', keep: (m) => brotli(4)(json(m)) },
  { name: 'brotli quality 5 (chosen: packRequest)', keep: (m) => { const p = packRequest(m); if (!p.ok) throw new Error(p.reason); return p.packed; } },
  { name: 'brotli quality 9', keep: (m) => brotli(9)(json(m)) },
  { name: 'brotli quality 11', keep: (m) => brotli(11)(json(m)) },
  { name: 'template id + data + address + digest', keep: (m, d) => json(templateForm(m, d)) },
  { name: '... the same, brotli quality 5', keep: (m, d) => brotli(5)(json(templateForm(m, d))) },
];

const SIZES: readonly OrderConfirmationSize[] = ['small', 'standard', 'large'];
const header = ['form kept', ...SIZES.map((s) => `${s}: bytes / claim item / WU claim + outcome / CPU ms`)];
const rows: string[][] = CANDIDATES.map((c) => [c.name]);
const sizes: string[] = [];
for (const size of SIZES) {
  const fixture = orderConfirmation(size);
  const event = fixture.event({ eventId: 'e'.repeat(64), recipientId: 'r'.repeat(64), email: `${'e'.repeat(51)}@example.com` });
  const [plan] = planMessages(event, transactional, fixture.templates);
  if (!plan?.prepared.ok) throw new Error(`the ${size} order confirmation does not render`);
  const message = plan.prepared.request.message;
  sizes.push(`${size}: ${round(Buffer.byteLength(JSON.stringify(message)) / 1024, 1)} KB message JSON`);
  const subject = { key: plan.key, ...plan.identity, messageClass: transactional.name, occurredAt: plan.occurredAt };
  CANDIDATES.forEach((candidate, i) => {
    const times: number[] = [];
    let kept = candidate.keep(message, event.data);
    for (let run = 0; run < RUNS; run += 1) {
      const started = performance.now();
      kept = candidate.keep(message, event.data);
      times.push(performance.now() - started);
    }
    // The row as the sender writes it, the candidate's bytes as its message (a binary attribute).
    const request = candidate.asMap ? message : new Uint8Array(kept.length);
    const item = itemBytes(rowToItem(newClaimRow({ subject, ownerToken: '6f1c2a9e-3b4d-4e5f-8a7b-1c2d3e4f5a6b', nowMs: 0, timing: TIMING, request })));
    const units = Math.ceil(item / 1024);
    rows[i]!.push(`${kept.length} / ${item} B / ${units} + ${units} / ${round(quantile(times, 0.5), 2)}`);
  });
}
const packed = packRequest(orderConfirmationMessage('large'));
if (packed.ok) {
  const times = Array.from({ length: RUNS }, () => {
    const started = performance.now();
    brotliDecompressSync(packed.packed.subarray(1));
    return performance.now() - started;
  });
  sizes.push(`unpacking the large one (chosen form): ${round(quantile(times, 0.5), 2)} ms median`);
}

const text = `${sizes.join('; ')}\n${textTable(header, rows)}\n`;
process.stdout.write(text);
const out = resolve(join(import.meta.dirname, 'results'));
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'stored-request-candidates.md'),
  ['# What a discoverable claim could keep of its message', '', `${sizes.join('; ')}. CPU: median of ${RUNS} runs, ms.`, '', markdownTable(header, rows), ''].join('\n'),
);

function orderConfirmationMessage(size: OrderConfirmationSize): RenderedMessage {
  const fixture = orderConfirmation(size);
  const [plan] = planMessages(fixture.event(), transactional, fixture.templates);
  if (!plan?.prepared.ok) throw new Error(`the ${size} order confirmation does not render`);
  return plan.prepared.request.message;
}
