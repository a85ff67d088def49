import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds used so far by each child process of this one, by a short name from its command line. */
export type ChildCpu = ReadonlyMap<number, { readonly name: string; readonly seconds: number }>;

/** Linux's USER_HZ: /proc/PID/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/**
 * Reads /proc for the direct children of this process (dynalite, the provider services) and their
 * user + system CPU time. Empty where /proc is not there (not Linux).
 */
export function readChildCpu(): ChildCpu {
  const children = new Map<number, { name: string; seconds: number }>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return children;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the command name, which is in parentheses and may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const script = cmdline.find((part) => /\.(mjs|ts|js)$/.test(part)) ?? cmdline[0] ?? pid;
      const ticks = Number(fields[11]) + Number(fields[12]);
      children.set(Number(pid), { name: script.split('/').pop() ?? script, seconds: ticks / TICKS_PER_SECOND });
    } catch {
      // The process ended meanwhile.
    }
  }
  return children;
}
