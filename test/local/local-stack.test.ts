import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { blastStack } from '../../bench/pace/blast-scenario';
import { paceStack } from '../../bench/pace/pace-scenario';
import { NotifierStack } from '../../lib/notifier-stack';
import { LOCAL_STACK } from '../../local/local-runner';
import { localLaneSenders, resolveLocalStack, SCALED_VARIABLES, TARGET_VARIABLES, type LocalStack, type ScaledTiming } from '../../local/local-stack';
import { wireStack } from '../../local/wire-stack';
import { MODEL_STACK } from '../interleavings/model-stack';
import { logicalId, newApp, propertiesOf, resolveDummy, resourcesOfType, STUB_ENTRY, TEST_EMAIL_DOMAIN } from '../cdk/helpers';

/**
 * Every local tool runs, in each lane, the environment synth writes for that lane: the same variables with
 * the same values, except the resources it points at and the durations it scales (each listed by name).
 * The tools take the stacks below at run time; the tests of npm start and simulate --wire check that the
 * lanes they started are exactly `localLaneSenders` of these.
 */
const BLAST = { emailQuota: 20, maxConcurrency: 10, urgentMaxConcurrency: 5, bulkRateShare: 0.8, batchSize: 10, maxReceiveCount: 100 };
const PACE = { quotas: { email: 40, sms: 20 }, maximumConcurrency: 8, batchSize: 10, maxReceiveCount: 100 };
const TOOLS: readonly (readonly [string, LocalStack])[] = [
  ['npm start', LOCAL_STACK],
  ['simulate --wire', wireStack()],
  ['bench:blast, lanes on', blastStack({ ...BLAST, lanes: true })],
  ['bench:blast, lanes off', blastStack({ ...BLAST, lanes: false })],
  ['bench:pace, rate limiting on', paceStack({ ...PACE, rateLimiting: true })],
  ['bench:pace, off with its backoff scaled down', paceStack({ ...PACE, rateLimiting: false, backoff: { baseSeconds: 1, capSeconds: 60 } })],
  ['the interleaving model', MODEL_STACK],
];

/** The variables a lane's sender function gets at synth, references resolved to stand-ins, per lane. */
function synthesizedLanes(stack: LocalStack) {
  const app = newApp();
  const synthesized = new NotifierStack(app, 'LocalTool', {
    notifier: { ...stack.props, senderEntry: STUB_ENTRY, reclaimerEntry: STUB_ENTRY, statusEntry: STUB_ENTRY, outcomesEntry: STUB_ENTRY, alarms: { emails: [`oncall@${TEST_EMAIL_DOMAIN}`] } },
  });
  const template = Template.fromStack(synthesized);
  const mappings = Object.values(resourcesOfType(template, 'AWS::Lambda::EventSourceMapping'));
  return synthesized.notifier.lanes.map((lane) => {
    const variables = (propertiesOf(template, lane.senderFunction)['Environment'] as { Variables: Record<string, unknown> }).Variables;
    const mapping = mappings.find((m) => JSON.stringify(m['FunctionName']) === JSON.stringify({ Ref: logicalId(lane.senderFunction) }));
    const queue = propertiesOf(template, lane.queue);
    return {
      name: lane.name,
      environment: Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, resolveDummy(v)])),
      maxConcurrency: (mapping?.['ScalingConfig'] as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency,
      queue: {
        visibilityTimeoutSeconds: queue['VisibilityTimeout'],
        retentionSeconds: queue['MessageRetentionPeriod'],
        maxReceiveCount: (queue['RedrivePolicy'] as { maxReceiveCount?: number }).maxReceiveCount,
      },
    };
  });
}

/** The variables a local lane may differ in: where it points, and the durations this tool scales. */
function localOnly(stack: LocalStack): Set<string> {
  return new Set<string>([...TARGET_VARIABLES, ...Object.keys(stack.scaled ?? {}).map((name) => SCALED_VARIABLES[name as keyof ScaledTiming])]);
}

describe('each local tool runs the environment synth writes for each lane', () => {
  it.each(TOOLS)('%s', (_tool, stack) => {
    const resolved = resolveLocalStack(stack);
    const synthesized = synthesizedLanes(stack);
    const local = localLaneSenders(resolved, {
      tableName: 'local-ledger',
      queues: resolved.lanes.map(({ name }) => ({ queueUrl: `http://127.0.0.1:1/q/${name}`, deadLetterQueueUrl: `http://127.0.0.1:1/q/${name}-dlq` })),
    });
    expect(local.map((lane) => lane.name)).toEqual(synthesized.map((lane) => lane.name));
    const differs = localOnly(stack);
    const without = (environment: Readonly<Record<string, string>>) => Object.fromEntries(Object.entries(environment).filter(([name]) => !differs.has(name)));
    for (const [index, lane] of local.entries()) {
      const synth = synthesized[index]!;
      // Every variable synth writes, with its value; nothing more.
      expect(without(lane.environment), `${lane.name} lane`).toEqual(without(synth.environment));
      expect(Object.keys(lane.environment).sort(), `${lane.name} lane`).toEqual(Object.keys(synth.environment).sort());
      for (const [name, value] of Object.entries(stack.scaled ?? {})) expect(lane.environment[SCALED_VARIABLES[name as keyof ScaledTiming]]).toBe(String(value));
      // The event source's concurrency, and how the lane's queue redelivers.
      expect(lane.maxConcurrency).toBe(synth.maxConcurrency);
      expect(resolved.queue).toEqual({ ...synth.queue, ...(stack.scaled?.visibilityTimeoutSeconds ? { visibilityTimeoutSeconds: stack.scaled.visibilityTimeoutSeconds } : {}) });
    }
  }, 60_000);

  it('refuses a stack synth would refuse, with synth\'s reasons', () => {
    expect(() => resolveLocalStack({ props: { emailFrom: 'notifications@example.com', maxReceiveCount: 5 } })).toThrow(
      /emailFrom \(notifications@example\.com\) uses the reserved domain example\.com[\s\S]*maxReceiveCount \(5\) with throttle backoff/,
    );
  });
});
