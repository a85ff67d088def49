import { defineConfig } from 'vitest/config';
import base from '../../vitest.config';
import { FastFirstSequencer } from './fast-first-sequencer';

/**
 * The suite's own configuration, for Stryker:
 * - only the tests of the product's behaviour. Left out: test/cdk (synth; the timing rules it
 *   shares are tested in test/core), test/local, test/docs, test/deploy and test/bench (local
 *   tooling, documentation, bundles: not the scope);
 * - test files share one module graph per worker instead of re-importing the AWS SDK for each
 *   file (the run takes about half as long);
 * - a mutant's covering files run quickest first (see FastFirstSequencer);
 * - no JSON results file is written for every mutant.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/core/**/*.test.ts',
      'test/capacity-model/**/*.test.ts',
      'test/adapters/**/*.test.ts',
      'test/delivery/**/*.test.ts',
      'test/sender/**/*.test.ts',
      'test/reclaimer/**/*.test.ts',
      'test/status/**/*.test.ts',
      'test/wire/**/*.test.ts',
      'test/cli/**/*.test.ts',
    ],
    isolate: false,
    reporters: ['default'],
    sequence: { sequencer: FastFirstSequencer },
  },
});
