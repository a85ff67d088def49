/**
 * `npx notifier <command> ...`: operator and developer tools.
 * Each command lives in its own module and is loaded only when asked for.
 */
type CommandModule = { run(argv: string[]): Promise<number> };

const COMMANDS: Record<string, { summary: string; load: () => Promise<CommandModule> }> = {
  ledger: { summary: 'show a message by key, or every message of an event (support look-up)', load: () => import('./ledger-command') },
  simulate: { summary: 'chaos-test the real sender locally (dynalite, injected faults) and report per class', load: () => import('./simulate-command') },
  templates: { summary: 'check the template files, or preview one rendered with your data', load: () => import('./templates-command') },
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    const list = Object.entries(COMMANDS)
      .map(([n, c]) => `  ${n.padEnd(10)} ${c.summary}`)
      .join('\n');
    process.stderr.write(`usage: notifier <command> [options]\n\ncommands:\n${list}\n`);
    return name && name !== '--help' && name !== 'help' ? 2 : 0;
  }
  return (await command.load()).run(rest);
}

process.exitCode = await main(process.argv.slice(2));

export {};
