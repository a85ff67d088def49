import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What `npx tsx bench/scale/log-bytes.ts` writes to bench/results/log-bytes.json, as the tables read it. */
export interface LogBytesResult {
  /** The sender's own lines per invocation (EMF metric documents), for each kind of message measured. */
  readonly results: readonly { readonly bytesPerInvocation: number }[];
  /** Lambda's system records per invocation (platform-log-lines.ts), warm and on a cold start. */
  readonly platformLines: { readonly bytesPerInvocation: number; readonly coldStartBytesPerInvocation: number };
}

/** The log bytes per invocation the cost table of docs/scale.md prices: the sender's (its largest kind) and Lambda's own. */
export interface LogBytesPerInvocation {
  readonly sender: number;
  readonly platform: number;
}

/** Reads bench/results/log-bytes.json under the repository `root`. */
export function readLogBytes(root: string): LogBytesPerInvocation {
  const result = JSON.parse(readFileSync(join(root, 'bench', 'results', 'log-bytes.json'), 'utf8')) as LogBytesResult;
  return { sender: Math.max(...result.results.map((r) => r.bytesPerInvocation)), platform: result.platformLines.bytesPerInvocation };
}
