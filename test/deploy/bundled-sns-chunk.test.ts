import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployedBuildOptions } from '../../bench/bundle-build';
import { BUNDLE_TARGETS } from '../../bench/bundle-size';
import { LAMBDA_NODE } from '../../bench/cold-import';
import { DEFAULT_ENTRIES } from '../../lib/notifier-function';
import { startLocalSns, type LocalSns } from '../../local/aws/local-sns-server';

/**
 * The SNS modules of a sender built to text (an SMS country allowed) load on first use, from chunks the bundling
 * shaped twice: each `import()` target imports the entry, and the AWS SDK's modules take each name from the module
 * that defines it, not from its barrel (lib/bundle-child-process.ts). This runs that chunk as Lambda would: the
 * bundled client publishes a text and asks SNS's opt-out list, through the query protocol and the XML parser that
 * now load only with it.
 */
let sns: LocalSns;
let dir: string;
let snsChunks: { provider: string; client: string };

beforeAll(async () => {
  sns = await startLocalSns();
  dir = mkdtempSync(join(tmpdir(), 'notifier-sns-chunk-'));
  const built = await esbuild.build(deployedBuildOptions(DEFAULT_ENTRIES.sender, { smsCountries: ['US'] }));
  for (const file of built.outputFiles) writeFileSync(join(dir, basename(file.path)), file.contents);
  const chunkOf = (module: string) => {
    const found = Object.entries(built.metafile.outputs).find(([, output]) => output.entryPoint?.endsWith(`functions/adapters/${module}.ts`));
    if (!found) throw new Error(`no chunk for ${module}`);
    return pathToFileURL(join(dir, basename(found[0]))).href;
  };
  snsChunks = { provider: chunkOf('sns-provider'), client: chunkOf('sns-client') };
}, 60_000);

afterAll(async () => {
  await sns.stop();
});

function runInLambdaNode(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const sender = BUNDLE_TARGETS.find((target) => target.name === 'sender');
  return new Promise((resolve) => {
    const child = spawn(LAMBDA_NODE, ['--input-type=module', '-e', script], {
      env: { ...sender?.env, AWS_ENDPOINT_URL_SNS: sns.endpoint, PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the bundled sender, built to text', () => {
  it("loads SNS's chunks on first use and texts through them: Publish, then CheckIfPhoneNumberIsOptedOut, answered in XML", async () => {
    const request = {
      key: 'bundled-sns-key',
      message: { channel: 'sms', to: '+12065550100', text: 'Your code is 123456' },
      messageClass: 'otp',
      smsType: 'Transactional',
      push: {},
      templateId: 'login-code',
      claimVersion: 1,
    };
    const script = [
      `await import(${JSON.stringify(pathToFileURL(join(dir, 'index.mjs')).href)});`,
      `const [{ SnsProvider }, { newSnsClient }] = await Promise.all([import(${JSON.stringify(snsChunks.provider)}), import(${JSON.stringify(snsChunks.client)})]);`,
      'const provider = new SnsProvider(newSnsClient(5000));',
      `const outcome = await provider.send(${JSON.stringify(request)}, new AbortController().signal);`,
      `const optedOut = await provider.optedOut('+12065550100', new AbortController().signal);`,
      'process.stdout.write(JSON.stringify({ outcome, optedOut }));',
      'process.exit(0);',
    ].join('\n');
    const { code, stdout, stderr } = await runInLambdaNode(script);
    expect(code, stderr).toBe(0);
    const { outcome, optedOut } = JSON.parse(stdout) as { outcome: { kind: string; providerMessageId?: string }; optedOut: boolean };
    expect(outcome.kind).toBe('sent');
    expect(outcome.providerMessageId).toBe(sns.accepted()[0]?.messageId);
    expect(sns.acceptedPerKey().get('bundled-sns-key')).toBe(1);
    expect(optedOut).toBe(false);
  }, 60_000);
});
