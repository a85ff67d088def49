import { CURRENTLY_RECOMMENDED_FLAGS } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { cdkJsonContext } from './helpers';

/**
 * cdk.json holds the feature flags the pinned aws-cdk-lib recommends, as `cdk init` writes them for a new app: a
 * bump that brings a new flag (2.278.0 brought `@aws-cdk/aws-iam:importedUserAndGroupStackSafeDefaultPolicyName`)
 * fails here instead of leaving `cdk synth` to say "1 feature flags are not configured".
 */
describe('cdk.json feature flags', () => {
  it('sets every flag the pinned aws-cdk-lib recommends, to its recommended value', () => {
    const context = cdkJsonContext();
    const unset = Object.entries(CURRENTLY_RECOMMENDED_FLAGS)
      .filter(([flag, value]) => JSON.stringify(context[flag]) !== JSON.stringify(value))
      .map(([flag, value]) => `${flag}: ${JSON.stringify(context[flag])} (recommended ${JSON.stringify(value)})`);
    expect(unset).toEqual([]);
  });
});
