import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { closingNote } from '../../local/closing-note';

describe('npm start, exiting after the summary', () => {
  it('says without a terminal why the pages closed and how to keep them open', () => {
    expect(closingNote({ stdoutIsTerminal: false })).toMatch(/stdout is not a terminal.*npm start -- --keep-open/);
    expect(closingNote({ stdoutIsTerminal: true })).toMatch(/as --no-keep-open asks.*npm start -- --keep-open/);
  });

  it('prints it as `npm start | cat` runs, with a summary whose state lines add up to the messages', () => {
    // stdout is a pipe here, as in `npm start | cat`: the run exits after the summary.
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'local/run.ts', '--rate', '200'], {
      encoding: 'utf8',
      // The run takes about 30 s alone; on a loaded machine several times that.
      timeout: 240_000,
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(closingNote({ stdoutIsTerminal: false }));
    const lines = run.stdout.split('\n');
    const count = (line: string | undefined) => Number(/(\d+)\s*$/.exec(line ?? '')?.[1]);
    const messages = count(lines.find((l) => l.startsWith('messages ')));
    const states = lines.filter((l) => /^ {2}(SENT|FAILED|UNKNOWN|SUPPRESSED|PENDING)\b/.test(l));
    expect(messages).toBe(27);
    expect(states.reduce((sum, l) => sum + count(l), 0)).toBe(messages);
  }, 300_000);
});
