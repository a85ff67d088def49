import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: {
      // Tests never reach AWS: fixed dummy credentials and region, and no Node-version nag.
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  },
});
