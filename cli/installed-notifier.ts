/**
 * `npx notifier <command> ...` from the installed package (compiled to dist/cli/ by `npm run build`):
 * the commands an adopter needs, on the package's runtime dependencies only.
 */
import { dispatch, endQuietlyOnClosedPipe, PACKAGED_COMMANDS } from './command-table';

endQuietlyOnClosedPipe();

process.exitCode = await dispatch(process.argv.slice(2), PACKAGED_COMMANDS, {
  unavailable: {
    simulate: 'runs from a clone of the idempotent-notifier repository (`npm ci`, then `npx notifier simulate`): it needs its local AWS stand-ins',
  },
});
