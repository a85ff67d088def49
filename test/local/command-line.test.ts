import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { integerOption, numberOption, parseCommandLine, UsageError } from '../../local/command-line';

const tsx = (args: readonly string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', ...args], { timeout: 60_000 }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );

describe('command-line options', () => {
  it('refuses an unknown option as a usage error, not parseArgs\' TypeError', () => {
    expect(() => parseCommandLine({ args: ['--bogus'], options: {} })).toThrow(UsageError);
  });

  it('takes whole numbers within bounds and names the option and value it refuses', () => {
    expect(integerOption('rounds', '3', { min: 1, max: 10 })).toBe(3);
    for (const raw of ['0', '11', '2.5', 'x', '', ' ']) {
      expect(() => integerOption('rounds', raw, { min: 1, max: 10 }), raw).toThrow(new UsageError(`--rounds must be a whole number from 1 to 10 (got "${raw}")`));
    }
    expect(() => integerOption('events', '0', { min: 1 })).toThrow('--events must be a whole number of at least 1 (got "0")');
  });

  it('takes fractions above a bound', () => {
    expect(numberOption('rate', '0.5', { above: 0, max: 100 })).toBe(0.5);
    for (const raw of ['0', '-1', '101', 'abc', '']) expect(() => numberOption('rate', raw, { above: 0, max: 100 }), raw).toThrow(UsageError);
  });
});

describe('the local commands\' bad arguments', () => {
  it.each([
    [['--bogus'], /Unknown option '--bogus'/],
    [['no-such-events.jsonl'], /no events file no-such-events\.jsonl/],
    [['--templates', '/nonexistent-templates'], /no templates folder \/nonexistent-templates/],
    [['--concurrency', '0'], /--concurrency must be a whole number from 1 to 1000 \(got "0"\)/],
  ])('npm start -- %j: the reason and the usage, exit 2, no stack trace', async (args, reason) => {
    const { code, stderr } = await tsx(['local/run.ts', ...args]);
    expect(code).toBe(2);
    expect(stderr).toMatch(reason);
    expect(stderr).toMatch(/^usage: npm start -- /m);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('a bench refuses a bad option the same way', async () => {
    const { code, stderr } = await tsx(['bench/provider-pace.ts', '--messages', 'many']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--messages must be a whole number of at least 2 \(got "many"\)\n\nusage: npm run bench:pace/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
