import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** Non-empty lines of a JSON-lines file, or of stdin for `-`. */
export async function readInputLines(source: string, stdin: Readable = process.stdin): Promise<string[]> {
  const stream = source === '-' ? stdin : createReadStream(source, 'utf8');
  const lines: string[] = [];
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (line.trim() !== '') lines.push(line);
  }
  return lines;
}

/**
 * Shifts every event's `occurredAt` by the same amount so that the newest is `now`: a recorded
 * stream stays inside the ledger's retention window (the sender dead-letters events older than
 * it) and keeps its spacing. Lines that are not JSON objects with a valid `occurredAt` pass as they are.
 */
export function rebaseTimestamps(lines: readonly string[], now: number): string[] {
  const times = lines.map(occurredAtOf);
  const newest = Math.max(...times.filter((t): t is number => t !== undefined));
  if (!Number.isFinite(newest)) return [...lines];
  const shift = now - newest;
  return lines.map((line, i) => {
    const t = times[i];
    if (t === undefined) return line;
    const event = JSON.parse(line) as Record<string, unknown>;
    return JSON.stringify({ ...event, occurredAt: new Date(t + shift).toISOString() });
  });
}

function occurredAtOf(line: string): number | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const at = (value as { occurredAt?: unknown }).occurredAt;
    const t = typeof at === 'string' ? Date.parse(at) : Number.NaN;
    return Number.isNaN(t) ? undefined : t;
  } catch {
    return undefined;
  }
}
