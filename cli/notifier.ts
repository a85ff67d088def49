/**
 * `npx notifier <command> ...` in a clone of this repository: every command, the simulator among them
 * (it needs the repository's dev dependencies: the local AWS stand-ins).
 */
import { dispatch, endQuietlyOnClosedPipe, PACKAGED_COMMANDS } from './command-table';

endQuietlyOnClosedPipe();

process.exitCode = await dispatch(process.argv.slice(2), {
  ...PACKAGED_COMMANDS,
  simulate: { summary: 'chaos-test the real sender locally (dynalite, injected faults) and report per class', load: () => import('./simulate-command') },
});
