import { describe, expect, it } from 'vitest';
import { formatDuration, formatProgress, ProgressLine, type ProgressStream } from '../../local/progress-line';

/** A stand-in for process.stderr that keeps what is written. */
function fakeStream(isTTY: boolean, columns?: number): ProgressStream & { readonly output: () => string } {
  let written = '';
  return {
    isTTY,
    columns,
    write: (text: string) => {
      written += text;
      return true;
    },
    output: () => written,
  };
}

const at = (done: number, elapsedMs: number, plain?: string) => ({ done, total: 1000, elapsedMs, text: `acknowledged ${done}`, plain });

describe('ProgressLine, not in a terminal', () => {
  it('prints the plain lines it is given, one per update, and nothing else', () => {
    const stream = fakeStream(false);
    const line = new ProgressLine(stream);
    line.log('round 1/4 ...');
    line.update(at(100, 1000, 'injected 300/1000, acknowledged 100, in queue 200, 1 s'));
    line.update(at(100, 1500)); // the caller had nothing new to say
    line.update(at(1000, 4000, 'injected 1000/1000, acknowledged 1000, in queue 0, 4 s'));
    line.end();
    expect(stream.output()).toBe(
      'round 1/4 ...\ninjected 300/1000, acknowledged 100, in queue 200, 1 s\ninjected 1000/1000, acknowledged 1000, in queue 0, 4 s\n',
    );
    expect(line.interactive).toBe(false);
  });
});

describe('ProgressLine, in a terminal', () => {
  it('redraws one line with carriage returns, ignores the plain text, and ends with a newline', () => {
    const stream = fakeStream(true);
    const line = new ProgressLine(stream);
    line.update(at(250, 2000, 'plain only'));
    line.update(at(500, 4000, 'plain only'));
    line.end();
    const output = stream.output();
    expect(output).toBe(`\r${formatProgress(at(250, 2000))}\u001b[K\r${formatProgress(at(500, 4000))}\u001b[K\n`);
    expect(output).not.toContain('plain only');
    expect(output.split('\n')).toHaveLength(2);
  });

  it('clears the progress line before a lasting line, and the next update draws it again below', () => {
    const stream = fakeStream(true);
    const line = new ProgressLine(stream);
    line.update(at(250, 2000));
    line.log('round 2/4 ...');
    line.update(at(10, 100));
    line.end();
    expect(stream.output()).toBe(
      `\r${formatProgress(at(250, 2000))}\u001b[K\r\u001b[Kround 2/4 ...\n\r${formatProgress(at(10, 100))}\u001b[K\n`,
    );
  });

  it('writes nothing at the end when no line is drawn', () => {
    const stream = fakeStream(true);
    const line = new ProgressLine(stream);
    line.log('done');
    line.end();
    expect(stream.output()).toBe('done\n');
  });

  it('cuts the line to the terminal width, so a redraw never wraps', () => {
    const stream = fakeStream(true, 20);
    new ProgressLine(stream).update(at(250, 2000));
    expect(stream.output()).toBe(`\r${formatProgress(at(250, 2000)).slice(0, 19)}\u001b[K`);
  });
});

describe('formatProgress', () => {
  it('shows done/total, the share, the rate so far, the time so far and the rest at that rate', () => {
    expect(formatProgress(at(250, 2000))).toBe('250/1000 (25%), 125/s, 2 s, ETA 6 s | acknowledged 250');
  });

  it('shows a slow rate with one decimal, and no ETA before anything is done', () => {
    expect(formatProgress(at(3, 2000))).toBe('3/1000 (0%), 1.5/s, 2 s, ETA 11 min 05 s | acknowledged 3');
    expect(formatProgress(at(0, 2000))).toBe('0/1000 (0%), 0.0/s, 2 s, ETA ? | acknowledged 0');
  });

  it('shows 100% and no time left once everything is done, even past the total', () => {
    expect(formatProgress(at(1200, 8000))).toBe('1200/1000 (100%), 150/s, 8 s, ETA 0 s | acknowledged 1200');
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0 s'],
    [59_400, '59 s'],
    [60_000, '1 min 00 s'],
    [3_599_000, '59 min 59 s'],
    [3_720_000, '1 h 02 min'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
