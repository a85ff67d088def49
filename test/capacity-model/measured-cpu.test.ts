import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MEASURED_CPU_MS_PER_MESSAGE } from '../../lib/capacity-model/lane-throughput';

const ROOT = join(import.meta.dirname, '..', '..');

/** The parts of bench/results/latency-throughput.json the CPU figure comes from. */
interface LatencyRun {
  readonly settings: { readonly events: number; readonly rounds: number };
  readonly pooled: Record<
    string,
    {
      readonly messagesPerSecondPerInstance: number;
      readonly queueMessagesPerSecondPerInstance: number;
      readonly invocations: number;
      readonly cpuMsPerInvocation: number;
    }
  >;
}

const run = JSON.parse(readFileSync(join(ROOT, 'bench', 'results', 'latency-throughput.json'), 'utf8')) as LatencyRun;
const pooled = run.pooled['this-sender'];

/**
 * Notification messages per invocation, pooled over the rounds: the json gives messages and queue messages at the same
 * billed seconds, so their ratio is messages per queue message; each round injects `events` queue messages.
 * (Not `recordsPerInvocation`: a record fans out to its recipients x channels, and the model counts messages.)
 */
function messagesPerInvocation(): number {
  if (!pooled) throw new Error('bench/results/latency-throughput.json has no pooled this-sender figures');
  const messagesPerQueueMessage = pooled.messagesPerSecondPerInstance / pooled.queueMessagesPerSecondPerInstance;
  return (messagesPerQueueMessage * run.settings.events * run.settings.rounds) / pooled.invocations;
}

describe('the capacity model\'s CPU per message is the committed latency bench\'s (npm run bench:latency)', () => {
  it('equals CPU ms per invocation over messages per invocation, rounded to 0.1 ms, so a bench refresh cannot leave it stale', () => {
    const measured = pooled!.cpuMsPerInvocation / messagesPerInvocation();
    expect(MEASURED_CPU_MS_PER_MESSAGE).toBe(Math.round(measured * 10) / 10);
  });
});
