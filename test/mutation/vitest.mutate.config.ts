import { defineConfig, mergeConfig } from 'vitest/config';
import base from '../../vitest.config';

/**
 * The suite's own configuration, for Stryker: test files share one module graph per worker
 * instead of re-importing the AWS SDK for each file (the run takes about half as long), and
 * no JSON results file is written for every mutant.
 */
export default mergeConfig(base, defineConfig({ test: { isolate: false, reporters: ['default'] } }));
