import { defineConfig } from 'vitest/config';

// Tests never reach AWS unless asked: dummy credentials and region pin every SDK client to what the
// suite starts on loopback. TEST_LEDGER_ON_AWS=true keeps the caller's own credentials and region.
const onAws = process.env.TEST_LEDGER_ON_AWS === 'true';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/temp-root.ts'],
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...(onAws ? {} : { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' }),
    },
  },
});
