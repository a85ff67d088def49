/**
 * One progress line for the long local commands (`notifier simulate`, `npm run bench`, `npm run bench:pace`).
 * In a terminal it is redrawn in place (`\r`, then erase to the end of the line) with done/total, rate and
 * ETA; anywhere else (CI logs, a file) each update prints the plain line the caller gives, or nothing.
 *
 * Hand-written rather than cli-progress or log-update: those redraw with cursor-movement escapes and bring
 * their own non-terminal output, where these commands must keep printing the plain lines they always printed.
 */

/** Where the line goes: process.stderr, or a stand-in in tests. */
export interface ProgressStream {
  write(text: string): unknown;
  /** True when a terminal shows the stream: only then is the line redrawn in place. */
  readonly isTTY?: boolean;
  /** The terminal's width; a longer line is cut to fit, because a wrapped line cannot be redrawn with `\r`. */
  readonly columns?: number;
}

/** One update: how far the run is, and what it is doing. */
export interface ProgressUpdate {
  /** Units finished (acknowledged queue messages, sends, ...). */
  readonly done: number;
  /** Units the run will finish in all. */
  readonly total: number;
  /** Time since the run started, in milliseconds. */
  readonly elapsedMs: number;
  /** What the run is doing, shown after the counts. */
  readonly text: string;
  /** The line printed instead when the stream is not a terminal. @default nothing is printed */
  readonly plain?: string;
}

const ERASE_TO_END_OF_LINE = '\u001b[K';

/** `42 s`, `3 min 05 s`, `1 h 02 min`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** `250/1000 (25%), 125/s, 2 s, ETA 6 s | text`: the rate is the whole run's so far, the ETA the rest at that rate. */
export function formatProgress(update: ProgressUpdate): string {
  const { done, total, elapsedMs, text } = update;
  const percent = total > 0 ? Math.floor((100 * Math.min(done, total)) / total) : 100;
  const perSecond = elapsedMs > 0 ? (1000 * done) / elapsedMs : 0;
  const rate = perSecond >= 10 ? String(Math.round(perSecond)) : perSecond.toFixed(1);
  const eta = done >= total ? formatDuration(0) : perSecond > 0 ? formatDuration((1000 * (total - done)) / perSecond) : '?';
  return `${done}/${total} (${percent}%), ${rate}/s, ${formatDuration(elapsedMs)}, ETA ${eta} | ${text}`;
}

/** A progress line on one stream; `log` prints lasting lines without tearing it. */
export class ProgressLine {
  private readonly stream: ProgressStream;
  private drawn = false;

  /** @param stream @default process.stderr */
  constructor(stream: ProgressStream = process.stderr) {
    this.stream = stream;
  }

  /** Whether updates redraw one line (a terminal) or print plain lines. */
  get interactive(): boolean {
    return this.stream.isTTY === true;
  }

  /** In a terminal, redraws the line; elsewhere prints `update.plain`, if any, as a line of its own. */
  update(update: ProgressUpdate): void {
    if (!this.interactive) {
      if (update.plain !== undefined) this.stream.write(`${update.plain}\n`);
      return;
    }
    const line = formatProgress(update);
    const width = this.stream.columns;
    this.stream.write(`\r${width && line.length >= width ? line.slice(0, width - 1) : line}${ERASE_TO_END_OF_LINE}`);
    this.drawn = true;
  }

  /** Prints a line that stays, in place of the progress line (the next update draws it again below). */
  log(line: string): void {
    if (this.drawn) this.stream.write(`\r${ERASE_TO_END_OF_LINE}`);
    this.drawn = false;
    this.stream.write(`${line}\n`);
  }

  /** Leaves the last progress line on screen and moves below it. */
  end(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }
}
