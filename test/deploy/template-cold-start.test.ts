import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleNotifierHandler } from '../../lib/function-bundle';
import { DEFAULT_ENTRIES } from '../../lib/notifier-function';
import { SHIPPED_TEMPLATES_IDENTIFIER } from '../../functions/sender/shipped-templates';

const require = createRequire(import.meta.url);
const LAMBDA_NODE = join(dirname(require.resolve('node/package.json')), 'bin', 'node');
const dir = mkdtempSync(join(tmpdir(), 'notifier-cold-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The sender bundled as synth bundles it, but with the template files embedded as they are, unchecked (as a
 * bundle built by other means could carry them, one of them one synth would have refused): its cold start must
 * fail before anything else, since the sender reads the templates synth checked without checking them again.
 */
describe('the bundled sender with templates synth did not check', () => {
  it('fails its cold start with a ConfigurationError naming what the bundle should embed', async () => {
    const files = [
      { name: 'ok.json', text: JSON.stringify({ fields: { a: { maxLength: 5 } }, sms: { text: 'A {{a}}' } }) },
      { name: 'undeclared.json', text: JSON.stringify({ fields: {}, push: { title: 'T', body: '{{b}}' } }) },
    ];
    const outdir = join(dir, 'asset');
    const outfile = join(outdir, 'index.mjs');
    bundleNotifierHandler(DEFAULT_ENTRIES.sender, outdir, { define: { [SHIPPED_TEMPLATES_IDENTIFIER]: JSON.stringify(files) } });
    // Loaded by Node 24 as Lambda loads it, with no environment at all: the templates are read before the configuration.
    const script = `import(${JSON.stringify(pathToFileURL(outfile).href)}).then(() => console.log('{}'), (e) => console.log(JSON.stringify({ name: e.name, message: e.message })))`;
    const { stdout } = await promisify(execFile)(LAMBDA_NODE, ['--input-type=module', '-e', script], { env: {}, cwd: outdir });
    const error = JSON.parse(stdout) as { name?: string; message?: string };
    expect(error.name).toBe('ConfigurationError');
    expect(error.message).toBe(
      'This bundle embeds something other than the templates synth checked (__NOTIFIER_TEMPLATES__ is not notifier-checked-templates/1): ' +
        'build the sender with the IdempotentNotifier construct, which validates the templates folder at synth and embeds it',
    );
  }, 60_000);
});
