import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, type BuiltBundle } from '../../bench/bundle-build';
import { COLD_IMPORT_BUDGETS, FUNCTION_BUDGETS, measureBundles, OWN_CODE_LIMIT_BYTES } from '../../bench/bundle-size';
import { DEFAULT_ENTRIES } from '../../lib/notifier-function';

/**
 * Issue 11's bundle budget, checked on every test run rather than only when someone runs the bench:
 * each function bundled as the stack bundles it, with the AWS SDK left out (the count the budget is on)
 * and with it in (the asset that is deployed).
 */
type Name = keyof typeof DEFAULT_ENTRIES;
const own = {} as Record<Name, BuiltBundle>;
const asset = {} as Record<Name, BuiltBundle>;

beforeAll(async () => {
  for (const name of Object.keys(DEFAULT_ENTRIES) as Name[]) {
    own[name] = await buildBundle(DEFAULT_ENTRIES[name], { withoutSdk: true });
    asset[name] = await buildBundle(DEFAULT_ENTRIES[name], { withoutSdk: false });
  }
}, 120_000);

describe('Lambda bundle budget', () => {
  it(`the sender's own code and non-AWS dependencies stay within ${OWN_CODE_LIMIT_BYTES / 1024} KB minified`, () => {
    expect(own.sender.bytes).toBeLessThanOrEqual(OWN_CODE_LIMIT_BYTES);
  });

  it('so they do with a long SMS country list embedded (all of North America and Europe\'s largest), and carry no libphonenumber-js', async () => {
    const countries = ['US', 'CA', 'PR', 'GB', 'IE', 'DE', 'FR', 'ES', 'IT', 'NL', 'BE', 'AT', 'CH', 'SE', 'NO', 'DK', 'FI', 'PL', 'PT', 'MX'];
    const withCountries = await buildBundle(DEFAULT_ENTRIES.sender, { withoutSdk: true, smsCountries: countries });
    expect(withCountries.bytes).toBeLessThanOrEqual(OWN_CODE_LIMIT_BYTES);
    expect(withCountries.bytes).toBeGreaterThan(own.sender.bytes);
    expect(withCountries.packages.map((p) => p.name)).not.toContain('libphonenumber-js');
  });

  it('built for SNS (the default) the sender carries no End User Messaging adapter; built for it, the adapter is a chunk of its own, loaded with the first text, and the sender stays within the budget', async () => {
    expect(own.sender.inputs.some((input) => input.includes('eum-sms-provider'))).toBe(false);
    const eum = await buildBundle(DEFAULT_ENTRIES.sender, { withoutSdk: true, smsProvider: 'end-user-messaging' });
    expect(eum.inputs.some((input) => input.includes('eum-sms-provider'))).toBe(true);
    expect(eum.bytes).toBeLessThanOrEqual(OWN_CODE_LIMIT_BYTES);
    // Not at cold start: the adapter is reached only through import().
    expect(eum.startupBytes).toBeLessThan(eum.bytes - 2_000);
  });

  it('the largest build a stack can ask for, End User Messaging with the long country list, stays within it too', async () => {
    const countries = ['US', 'CA', 'PR', 'GB', 'IE', 'DE', 'FR', 'ES', 'IT', 'NL', 'BE', 'AT', 'CH', 'SE', 'NO', 'DK', 'FI', 'PL', 'PT', 'MX'];
    const largest = await buildBundle(DEFAULT_ENTRIES.sender, { withoutSdk: true, smsProvider: 'end-user-messaging', smsCountries: countries });
    expect(largest.bytes).toBeLessThanOrEqual(OWN_CODE_LIMIT_BYTES);
  });

  it('no function carries zod or the Powertools parser (built on it): the schemas are valibot, whose plain objects cost far less at a cold start', () => {
    for (const name of Object.keys(DEFAULT_ENTRIES) as Name[]) {
      const packages = own[name].packages.map((p) => p.name);
      expect(packages, name).toContain('valibot');
      expect(packages, name).not.toContain('zod');
      expect(packages, name).not.toContain('@aws-lambda-powertools/parser');
    }
  });

  for (const name of Object.keys(FUNCTION_BUDGETS) as Name[]) {
    const budget = FUNCTION_BUDGETS[name];
    it(`the ${name}'s own code stays within ${budget.ownBytes / 1024} KB and its cold start reads at most ${budget.startupBytes / 1024} KB (issue 50)`, () => {
      expect(own[name].bytes, `${name} own code`).toBeLessThanOrEqual(budget.ownBytes);
      expect(asset[name].startupBytes, `${name} read at cold start`).toBeLessThanOrEqual(budget.startupBytes);
    });
  }

  it('every function\'s cold start reads two files, index.mjs and one chunk, however many import() targets it has (lib/bundle-child-process.ts)', () => {
    for (const name of Object.keys(DEFAULT_ENTRIES) as Name[]) {
      expect(asset[name].startupFiles, name).toHaveLength(2);
      expect(asset[name].files.length, `${name}: its import() targets are chunks of their own`).toBeGreaterThan(2);
    }
  });

  it('a sender cold start reads no code that only an import() target runs: the SDK\'s query protocol, XML parser and MD5 load with SNS', () => {
    for (const marker of ['@aws-sdk/core/dist-es/submodules/protocols/query/', '@aws-sdk/xml-builder/', '@smithy/core/dist-es/submodules/checksum/md5/']) {
      expect(asset.sender.inputs.some((input) => input.includes(marker)), `${marker} in the asset`).toBe(true);
      expect(asset.sender.startupInputs.some((input) => input.includes(marker)), `${marker} read at cold start`).toBe(false);
    }
  });

  it('a sender cold start neither reads the SNS nor the End User Messaging client, nor their providers: they load with the first text or push', async () => {
    const eum = await buildBundle(DEFAULT_ENTRIES.sender, { withoutSdk: false, smsProvider: 'end-user-messaging' });
    const sns = ['@aws-sdk/client-sns/', 'functions/adapters/sns-provider.ts', 'functions/adapters/sns-client.ts'];
    const endUserMessaging = ['@aws-sdk/client-pinpoint-sms-voice-v2/', 'functions/adapters/eum-sms-provider.ts', 'functions/adapters/eum-client.ts'];
    for (const [built, lazy] of [[asset.sender, sns], [eum, [...sns, ...endUserMessaging]]] as const) {
      for (const marker of lazy) {
        expect(built.inputs.some((input) => input.includes(marker)), `${marker} in the asset`).toBe(true);
        expect(built.startupInputs.some((input) => input.includes(marker)), `${marker} read at cold start`).toBe(false);
      }
      // Read at cold start: SES (its account is read then) and the ledger's DynamoDB.
      expect(built.startupInputs.some((input) => input.includes('@aws-sdk/client-sesv2/'))).toBe(true);
      expect(built.startupInputs.some((input) => input.includes('@aws-sdk/client-dynamodb/'))).toBe(true);
    }
    expect(asset.sender.inputs.some((input) => input.includes('@aws-sdk/client-pinpoint-sms-voice-v2/')), 'built for SNS: no End User Messaging client').toBe(false);
  });

  it('a reclaimer cold start reads none of the delivery code: it loads with the run\'s first stale row (most runs find none)', () => {
    const lazy = ['functions/reclaimer/settle-stale-row.ts', 'functions/delivery/deliver-message.ts', 'functions/delivery/send-gate.ts', 'functions/delivery/acquire-claim.ts'];
    for (const marker of lazy) {
      expect(asset.reclaimer.inputs, `${marker} in the asset`).toContain(marker);
      expect(asset.reclaimer.startupInputs, `${marker} read at cold start`).not.toContain(marker);
    }
  });

  it('no function carries middy, whose module load brings Node\'s web streams into the cold start', () => {
    for (const name of Object.keys(DEFAULT_ENTRIES) as Name[]) {
      expect(own[name].packages.map((p) => p.name), name).not.toContain('@middy/core');
    }
  });

  it('no function carries the template checker: the sender reads the templates synth checked', () => {
    for (const name of Object.keys(DEFAULT_ENTRIES) as Name[]) {
      expect(own[name].inputs.filter((input) => input.includes('functions/core/template-checks/')), name).toEqual([]);
    }
  });

  it.runIf(process.env.NOTIFIER_COLD_IMPORT_BUDGET === '1')('on a quiet machine: each function\'s cold import CPU is within its budget against the Powertools baseline', async () => {
    const measured = await measureBundles(9);
    for (const [name, budget] of Object.entries(COLD_IMPORT_BUDGETS)) {
      const ratio = measured.find((b) => b.name === name)?.cpuVsBaseline?.median;
      expect(ratio, `${name}: cold import CPU vs the baseline, median of 9 rounds`).toBeLessThanOrEqual(budget);
    }
  }, 600_000);

  it('the status function carries no SES, SNS or SQS client: it only reads and writes the ledger', () => {
    const clients = new Set(asset.status.packages.map((p) => p.name).filter((name) => name.startsWith('@aws-sdk/client-')));
    expect([...clients]).toEqual(['@aws-sdk/client-dynamodb']);
  });
});
