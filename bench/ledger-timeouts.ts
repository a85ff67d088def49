/**
 * What a 512 MB Lambda's CPU share does to the ledger client's timeouts (connect 500 ms, request
 * 1.5 s, 4 attempts) with 16 deliveries in flight: `npx tsx bench/ledger-timeouts.ts [rounds]`.
 *
 * The sender (bench/timeouts/cpu-limited-sender.ts) runs in a child process inside a cgroup whose
 * CFS quota is 512/1769 of one CPU (Lambda gives one vCPU at 1,769 MB and a share in proportion
 * below; the quota is enforced the same way, per 100 ms period), and for comparison without a
 * limit. It talks TLS, as in Lambda, to dynalite and to the local SES v2 and SNS servers through
 * TLS forwarders in this process (providers answer after 80 ms, about SES's and SNS's own latency).
 * Needs Linux with a writable cgroup v1 `cpu` controller (run as root); prints the figures and
 * writes them to bench/results/ledger-timeouts.txt.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LEDGER_CONNECT_TIMEOUT_MS, LEDGER_MAX_ATTEMPTS, LEDGER_REQUEST_TIMEOUT_MS } from '../functions/adapters/ledger-client-config';
import { ensureLedgerTable } from '../functions/adapters/ledger-table-setup';
import { startLocalSes } from '../local/aws/local-ses';
import { startLocalSns } from '../local/aws/local-sns-server';
import { startLocalDynamo } from '../local/local-dynamo';

const ROUNDS = Number(process.argv[2] ?? 3);
const INVOCATIONS = 8;
/** Lambda's CPU share by memory size: one vCPU at 1,769 MB. */
const ONE_VCPU_MB = 1769;
/** The sizes measured: the stack's 512 MB, the smallest (a bound), and no limit. */
const LIMITS: readonly { readonly label: string; readonly memoryMb: number | undefined }[] = [
  { label: '512 MB', memoryMb: 512 },
  { label: '128 MB', memoryMb: 128 },
  { label: 'no limit', memoryMb: undefined },
];
/** Lambda's runtime (the `node` devDependency's Node.js), else the Node running this. */
const NODE = existsSync('node_modules/node/bin/node') ? join(process.cwd(), 'node_modules/node/bin/node') : process.execPath;
const CGROUP_ROOT = '/sys/fs/cgroup/cpu';
const PROVIDER_LATENCY_MS = 80;

interface ChildResult {
  readonly attempts: readonly { readonly ms: number; readonly error?: string; readonly invocation: number }[];
  readonly invocationMs: readonly number[];
  readonly failedRecords: number;
  readonly sent: number;
  readonly ledgerErrors: number;
  readonly eventLoopDelayMs: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly cpuMs: number;
  readonly wallMs: number;
}

/** An HTTPS server that forwards every request to `target` (plain HTTP), answering after `delayMs`. */
async function tlsForwarder(target: string, tls: { key: string; cert: string }, delayMs = 0): Promise<{ endpoint: string; close(): void }> {
  const to = new URL(target);
  const server = createHttpsServer(tls, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const upstream = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () =>
          setTimeout(() => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(body));
          }, delayMs),
        );
      });
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

function cpuStat(cgroup: string | undefined): { nrThrottled: number; throttledMs: number } {
  if (!cgroup) return { nrThrottled: 0, throttledMs: 0 };
  const stat = Object.fromEntries(readFileSync(join(cgroup, 'cpu.stat'), 'utf8').trim().split('\n').map((l) => l.split(' ') as [string, string]));
  return { nrThrottled: Number(stat.nr_throttled ?? 0), throttledMs: Number(stat.throttled_time ?? 0) / 1e6 };
}

async function runChild(env: Record<string, string>, cgroup: string | undefined): Promise<ChildResult> {
  const tsx = join(process.cwd(), 'node_modules/tsx/dist/loader.mjs');
  const node = `exec "${NODE}" --import "${tsx}" bench/timeouts/cpu-limited-sender.ts`;
  // Enter the cgroup before the sender's first instruction.
  const script = cgroup ? `echo $$ > ${join(cgroup, 'cgroup.procs')} && ${node}` : node;
  const child = spawn('sh', ['-c', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`sender child exited with ${code}`);
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as ChildResult;
}

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const median = (values: readonly number[]) => quantile(values, 0.5);
const ms = (n: number) => `${Math.round(n)}`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-timeouts-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const tls = { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };

  const dynamo = await startLocalDynamo({ separateProcess: true });
  const [ses, sns] = await Promise.all([startLocalSes(), startLocalSns()]);
  const forwarders = await Promise.all([tlsForwarder(dynamo.endpoint, tls), tlsForwarder(ses.endpoint, tls, PROVIDER_LATENCY_MS), tlsForwarder(sns.endpoint, tls, PROVIDER_LATENCY_MS)]);
  const [dynamoTls, sesTls, snsTls] = forwarders;
  const tableName = 'ledger-timeouts-bench';
  await ensureLedgerTable(dynamo.client(), tableName);

  const cgroup = join(CGROUP_ROOT, `notifier-ledger-timeouts-${process.pid}`);
  mkdirSync(cgroup);
  writeFileSync(join(cgroup, 'cpu.cfs_period_us'), '100000');
  const env = {
    NODE_EXTRA_CA_CERTS: certFile,
    DYNAMO_ENDPOINT: dynamoTls!.endpoint,
    SES_ENDPOINT: sesTls!.endpoint,
    SNS_ENDPOINT: snsTls!.endpoint,
    TABLE_NAME: tableName,
    INVOCATIONS: String(INVOCATIONS),
  };
  const rows: string[][] = [];
  const byLimit = new Map<string, { p99: number[]; max: number[]; coldMax: number[]; loopMax: number[]; over500: number[]; timeouts: number[] }>();
  try {
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const limit of LIMITS) {
        const limited = limit.memoryMb !== undefined;
        const share = limited ? limit.memoryMb! / ONE_VCPU_MB : 1;
        if (limited) writeFileSync(join(cgroup, 'cpu.cfs_quota_us'), String(Math.round(share * 100_000)));
        const label = limited ? `${limit.label} (${(share * 100).toFixed(1)}% of a CPU)` : limit.label;
        const before = cpuStat(limited ? cgroup : undefined);
        const load = loadavg()[0]!;
        const r = await runChild(env, limited ? cgroup : undefined);
        const after = cpuStat(limited ? cgroup : undefined);
        const all = r.attempts.map((a) => a.ms);
        const cold = r.attempts.filter((a) => a.invocation === 0).map((a) => a.ms);
        const timeouts = r.attempts.filter((a) => a.error === 'TimeoutError').length;
        const others = r.attempts.filter((a) => a.error && a.error !== 'TimeoutError').length;
        const stats = byLimit.get(label) ?? { p99: [], max: [], coldMax: [], loopMax: [], over500: [], timeouts: [] };
        stats.p99.push(quantile(all, 0.99));
        stats.max.push(Math.max(...all));
        stats.coldMax.push(Math.max(...cold));
        stats.loopMax.push(r.eventLoopDelayMs.max);
        stats.over500.push(all.filter((x) => x >= 500).length);
        stats.timeouts.push(timeouts);
        byLimit.set(label, stats);
        rows.push([
          String(round),
          label,
          load.toFixed(1),
          `${r.attempts.length}`,
          `${ms(median(all))} / ${ms(quantile(all, 0.99))} / ${ms(Math.max(...all))}`,
          `${ms(Math.max(...cold))}`,
          `${all.filter((x) => x >= 500).length} / ${all.filter((x) => x >= 1000).length}`,
          `${timeouts} / ${others} / ${r.ledgerErrors}`,
          `${ms(r.eventLoopDelayMs.p99)} / ${ms(r.eventLoopDelayMs.max)}`,
          `${ms(r.cpuMs)} / ${ms(r.wallMs)}`,
          `${ms(median(r.invocationMs))}`,
          limited ? `${after.nrThrottled - before.nrThrottled} / ${ms(after.throttledMs - before.throttledMs)}` : '-',
          `${r.sent}`,
        ]);
      }
    }
  } finally {
    rmdirSync(cgroup);
    rmSync(dir, { recursive: true, force: true });
    for (const f of forwarders) f.close();
    await Promise.all([dynamo.stop(), ses.stop(), sns.stop()]);
  }
  const header = [
    'round',
    'CPU',
    'load (1 min)',
    'ledger attempts',
    'attempt ms p50 / p99 / max',
    'cold invocation max ms',
    '>= 500 / >= 1000 ms',
    'timeouts / other errors / LedgerError',
    'event loop delay p99 / max ms',
    'CPU / wall ms',
    'invocation ms (median)',
    'throttled periods / ms',
    'sent',
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  const out: string[] = [];
  const print = (text: string) => out.push(text);
  print(
    `ledger client: connect ${LEDGER_CONNECT_TIMEOUT_MS} ms, request ${LEDGER_REQUEST_TIMEOUT_MS} ms, ${LEDGER_MAX_ATTEMPTS} attempts; ` +
      `${INVOCATIONS} invocations of 10 records x 4 messages, 16 in flight, TLS, providers ${PROVIDER_LATENCY_MS} ms; the first invocation opens every connection; sender on ${NODE.includes('node_modules') ? `Node ${process.versions.node} (node_modules/node)` : process.version}`,
  );
  print(line(header));
  print(line(header.map((_, i) => '-'.repeat(widths[i]!))));
  for (const row of rows) print(line(row));
  for (const [label, s] of byLimit) {
    const range = (v: number[]) => `${ms(median(v))} (${ms(Math.min(...v))}-${ms(Math.max(...v))})`;
    print(
      `${label}, median (range) of ${ROUNDS} rounds: attempt p99 ${range(s.p99)} ms, max ${range(s.max)} ms, cold max ${range(s.coldMax)} ms, ` +
        `event loop max ${range(s.loopMax)} ms, attempts >= 500 ms ${range(s.over500)}, timeouts ${range(s.timeouts)}`,
    );
  }
  console.log(out.join('\n'));
  writeFileSync('bench/results/ledger-timeouts.txt', `${out.join('\n')}\n`);
}

await main();
