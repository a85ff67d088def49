import { beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, type BuiltBundle } from '../../bench/bundle-build';
import { OWN_CODE_LIMIT_BYTES } from '../../bench/bundle-size';
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

  it('the status function carries no SES, SNS or SQS client: it only reads and writes the ledger', () => {
    const clients = new Set(asset.status.packages.map((p) => p.name).filter((name) => name.startsWith('@aws-sdk/client-')));
    expect([...clients]).toEqual(['@aws-sdk/client-dynamodb']);
  });
});
