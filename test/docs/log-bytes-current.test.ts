import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'log-bytes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Measured {
  readonly results: readonly { readonly kind: Record<string, string>; readonly bytesPerInvocation: number; readonly lines: Record<string, number> }[];
  readonly platformLines: { readonly bytesPerInvocation: number; readonly coldStartBytesPerInvocation: number };
}

/**
 * docs/scale.md prices the sender's log bytes from bench/results/log-bytes.json: the file must still be what the sender
 * writes. It said 515 bytes per invocation (two EMF documents) for three days after the locale fallback count added a
 * third (928 bytes), and nothing noticed.
 */
describe('bench/results/log-bytes.json is what the sender writes today (npx tsx bench/scale/log-bytes.ts)', () => {
  it('the same kinds and numbers of lines per kind of message, the bytes within 2% (ids and times vary in length), the same platform records', async () => {
    const out = join(dir, 'log-bytes.json');
    await promisify(execFile)(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'scale', 'log-bytes.ts')], {
      cwd: ROOT,
      env: { ...process.env, LOG_BYTES_OUT: out },
      timeout: 120_000,
    });
    const measured = JSON.parse(readFileSync(out, 'utf8')) as Measured;
    const committed = JSON.parse(readFileSync(join(ROOT, 'bench', 'results', 'log-bytes.json'), 'utf8')) as Measured;
    expect(measured.results.map((r) => [r.kind, r.lines])).toEqual(committed.results.map((r) => [r.kind, r.lines]));
    measured.results.forEach((result, i) => {
      const was = committed.results[i]!.bytesPerInvocation;
      expect(Math.abs(result.bytesPerInvocation - was), `${JSON.stringify(result.kind)}: ${result.bytesPerInvocation} bytes per invocation, committed ${was}`).toBeLessThanOrEqual(was * 0.02);
    });
    expect(measured.platformLines.bytesPerInvocation).toBe(committed.platformLines.bytesPerInvocation);
    expect(measured.platformLines.coldStartBytesPerInvocation).toBe(committed.platformLines.coldStartBytesPerInvocation);
  }, 150_000);
});
