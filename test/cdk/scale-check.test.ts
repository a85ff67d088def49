import { describe, expect, it } from 'vitest';
import { ENV, loadSenderConfig } from '../../functions/core/sender-config';
import { build, errorOf, propertiesOf, resolveDummy, synth } from './helpers';

/** What one instance delivers at the stack's defaults (the capacity model's figure, in every refusal below). */
const PER_INSTANCE = /instances deliver about (\d+(?:\.\d+)?)\/s each/;

describe('scale: synth refuses settings that cannot reach the rates they are given (docs/scale.md)', () => {
  it('passes the defaults, with no rate stated and with a small account\'s rates', () => {
    expect(() => build({})).not.toThrow();
    expect(() => build({ sendRates: { emailPerSecond: 14, smsPerSecond: 20 } })).not.toThrow();
  });

  it('fails if the bulk lane\'s instances cannot deliver its share of the stated rate, naming maxConcurrency and the value that does', () => {
    const message = errorOf({ sendRates: { emailPerSecond: 2000 } });
    expect(message).toMatch(
      /sendRates \(2000\/s in all\) cannot be reached: the bulk lane must deliver 1600\/s \(its bulkRateShare of 2000\/s\), and its maxConcurrency \(10\) instances deliver about [\d.]+\/s each .*: raise maxConcurrency to at least (\d+)/,
    );
    const bulk = message.split('\n').find((line) => line.includes('the bulk lane')) ?? '';
    const perInstance = Number(PER_INSTANCE.exec(bulk)?.[1]);
    const enough = Number(/raise maxConcurrency to at least (\d+)/.exec(bulk)?.[1]);
    expect(enough).toBe(Math.ceil(1600 / perInstance));
    // The value it names does reach it.
    expect(() => build({ sendRates: { emailPerSecond: 2000 }, maxConcurrency: enough, lanes: { urgentMaxConcurrency: 20 } })).not.toThrow();
    expect(errorOf({ sendRates: { emailPerSecond: 2000 }, maxConcurrency: enough - 1, lanes: { urgentMaxConcurrency: 20 } })).toMatch(/raise maxConcurrency/);
  });

  it('fails if the urgent lane\'s instances cannot deliver the part kept for it, naming lanes.urgentMaxConcurrency', () => {
    expect(errorOf({ sendRates: { emailPerSecond: 2000 }, maxConcurrency: 100 })).toMatch(
      /the urgent lane must deliver 400\/s \(the part of 2000\/s kept for urgent sends\), and its lanes.urgentMaxConcurrency \(5\) instances .*: raise lanes.urgentMaxConcurrency to at least \d+/,
    );
  });

  it('fails if one lane (lanes: false) cannot deliver the rate less the reclaimer\'s share', () => {
    expect(errorOf({ lanes: false, sendRates: { emailPerSecond: 1000 } })).toMatch(
      /the lane must deliver 909\/s \(1000\/s less the reclaimer's share\), and its maxConcurrency \(10\) instances .*: raise maxConcurrency to at least \d+/,
    );
  });

  it('counts every stated channel: 300 e-mails and 300 SMS a second need more than 300 e-mails alone', () => {
    expect(() => build({ sendRates: { emailPerSecond: 300 } })).not.toThrow();
    expect(errorOf({ sendRates: { emailPerSecond: 300, smsPerSecond: 300 } })).toMatch(/sendRates \(600\/s in all\) cannot be reached/);
  });

  it('fails if no concurrency up to an event source\'s 1000 reaches the rate: it names the per-instance settings instead', () => {
    expect(errorOf({ sendRates: { emailPerSecond: 100_000 } })).toMatch(
      /no maxConcurrency up to 1000 \(an SQS event source's most\) reaches it: raise batchSize, maxConcurrentSends or memorySize/,
    );
  });

  it('fails if the pending index has too few shards for the stated rate to be discoverable at once', () => {
    expect(errorOf({ sendRates: { emailPerSecond: 10_000 }, maxConcurrency: 300, lanes: { urgentMaxConcurrency: 80 } })).toMatch(
      /pendingIndexShards \(16\) takes 8000 discoverable claims a second, below the stated sendRates \(10000\/s\).*raise pendingIndexShards to at least 20/,
    );
    expect(() => build({ sendRates: { emailPerSecond: 10_000 }, maxConcurrency: 300, lanes: { urgentMaxConcurrency: 80 }, pendingIndexShards: 20 })).not.toThrow();
  });

  it('fails if pendingIndexShards is below the shipped 16 or above 1000', () => {
    expect(errorOf({ pendingIndexShards: 8 })).toMatch(/pendingIndexShards \(8\) must be a whole number from 16 to 1000/);
    expect(errorOf({ pendingIndexShards: 1001 })).toMatch(/pendingIndexShards \(1001\) must be a whole number from 16 to 1000/);
  });

  it('fails if an invocation would run more sends at once than the SDK has sockets', () => {
    expect(errorOf({ maxConcurrentSends: 51, memorySize: 2048 })).toMatch(
      /maxConcurrentSends \(51\) is above the 50 sockets the AWS SDK opens per endpoint/,
    );
    expect(() => build({ maxConcurrentSends: 50, memorySize: 2048 })).not.toThrow();
  });

  it('passes pendingIndexShards to the senders and the reclaimer, whose handlers accept it', () => {
    const { stack, template } = synth({ pendingIndexShards: 32 });
    for (const fn of [stack.notifier.senderFunction, stack.notifier.reclaimerFunction]) {
      const variables = (propertiesOf(template, fn)['Environment'] as { Variables: Record<string, unknown> }).Variables;
      const env = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, resolveDummy(v)]));
      expect(env[ENV.pendingIndexShards]).toBe('32');
      expect(loadSenderConfig(env).pendingIndexShards).toBe(32);
    }
  });
});
