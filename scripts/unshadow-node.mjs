// The `node` devDependency (a Node 22 binary for the bundled-asset smoke test) links itself as
// node_modules/.bin/node, which npm scripts and npx put first on PATH: every script would silently run
// on Node 22 instead of the Node that runs npm. Remove that link; the smoke test calls the binary by path.
import { lstatSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';

for (const name of ['node', 'node.cmd', 'node.ps1']) {
  const link = join('node_modules', '.bin', name);
  try {
    const stat = lstatSync(link);
    const target = stat.isSymbolicLink() ? readlinkSync(link) : '';
    // Only the link npm made to the `node` package (on Windows: shims, which always are).
    if (!stat.isSymbolicLink() || target.includes(join('node', 'bin', 'node'))) rmSync(link);
  } catch {
    // not there: nothing to do
  }
}
