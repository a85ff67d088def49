import { accessSync, constants, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { coveredFiles as covered, MUTATE_SCOPE } from '../../scripts/mutation-reminder.mjs';

describe('the pre-commit reminder to run mutation testing', () => {
  it('names exactly the staged files that the mutation scope covers', () => {
    const staged = [
      'functions/core/ledger/ledger-decision.ts',
      'functions/adapters/dynamodb-ledger.ts',
      'functions/adapters/sqs-dead-letters.ts',
      'functions/delivery/deliver-message.ts',
      'functions/reclaimer/create-reclaimer.ts',
      'functions/adapters/outbox-provider.ts',
      'functions/status/handler.ts',
      'lib/notifier.ts',
      'test/core/ledger/ledger-decision.test.ts',
      'README.md',
    ];
    expect(covered(staged)).toEqual(staged.slice(0, 5));
  });

  it('reads the scope from stryker.config.mjs, so the two never disagree', () => {
    expect(covered(['functions/core/anything.ts'], ['functions/adapters/*.ts'])).toEqual([]);
    expect(MUTATE_SCOPE).toContain('functions/core/**/*.ts');
  });

  it('is the project hook that npm run hooks sets up', () => {
    accessSync('.githooks/pre-commit', constants.X_OK);
    expect(readFileSync('.githooks/pre-commit', 'utf8')).toContain('scripts/mutation-reminder.mjs');
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.hooks).toBe('git config core.hooksPath .githooks');
  });
});
