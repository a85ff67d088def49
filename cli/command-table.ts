/**
 * The `notifier` command dispatcher, shared by the two entries: `cli/notifier.ts` (a clone of the repository,
 * every command) and `cli/installed-notifier.ts` (the installed package, the commands an adopter needs).
 * Each command lives in its own module and is loaded only when asked for.
 */
export interface CommandModule {
  run(argv: string[]): Promise<number>;
}

export interface Command {
  readonly summary: string;
  readonly load: () => Promise<CommandModule>;
}

/** The commands that run from the installed package: they need its runtime dependencies only. */
export const PACKAGED_COMMANDS: Readonly<Record<string, Command>> = {
  ledger: { summary: 'show a message by key, or every message of an event (support look-up)', load: () => import('./ledger-command') },
  templates: { summary: 'check the template files, or preview one rendered with your data', load: () => import('./templates-command') },
};

export interface DispatchOptions {
  /** Commands this entry knows of but cannot run, with the reason printed instead. @default none */
  readonly unavailable?: Readonly<Record<string, string>>;
  /** @default process.stderr */
  readonly err?: (text: string) => void;
}

/** `notifier ... | head` closes the pipe early: that ends the command quietly, not with an EPIPE stack trace. */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

/** Runs `argv`'s command; exit code 0 for help, 2 for an unknown or unavailable command. */
export async function dispatch(argv: readonly string[], commands: Readonly<Record<string, Command>>, options: DispatchOptions = {}): Promise<number> {
  const err = options.err ?? ((text: string) => void process.stderr.write(text));
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (command) return (await command.load()).run(rest);
  const reason = name ? options.unavailable?.[name] : undefined;
  if (reason) {
    err(`notifier ${name}: ${reason}\n`);
    return 2;
  }
  const list = Object.entries(commands)
    .map(([n, c]) => `  ${n.padEnd(10)} ${c.summary}`)
    .join('\n');
  const prefix = name && name !== '--help' && name !== '-h' && name !== 'help' ? `unknown command: ${name}\n\n` : '';
  err(`${prefix}usage: notifier <command> [options]\n\ncommands:\n${list}\n`);
  return prefix ? 2 : 0;
}
