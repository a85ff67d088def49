import { Duration } from 'aws-cdk-lib';
import type { ChannelFallback } from '../../lib/notifier-fallback';
import { Match } from 'aws-cdk-lib/assertions';
import * as logs from 'aws-cdk-lib/aws-logs';
import { ENV } from '../../functions/core/sender-config';
import { describe, expect, it } from 'vitest';
import { HANDLER_FILE, NOTIFIER_BUNDLING } from '../../lib/function-bundle';
import { DEFAULT_ENTRIES, E164_LOG_MASK_PATTERN } from '../../lib/notifier-function';
import { logicalId, propertiesOf, resourcesOfType, synth } from './helpers';

const { stack, template } = synth();
const n = stack.notifier;

describe('functions', () => {
  it('runs the sender on Node.js 24 arm64 with the configured timeout and memory, logging JSON to its own log group', () => {
    expect(propertiesOf(template, n.senderFunction)).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Timeout: 30,
      MemorySize: 512,
      LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: logicalId(n.senderLogGroup) } },
      Role: { 'Fn::GetAtt': [logicalId(n.senderFunction.role!), 'Arn'] },
    });
  });

  it('gives the reclaimer the same runtime, timeout and environment as the sender', () => {
    const sender = propertiesOf(template, n.senderFunction);
    const reclaimer = propertiesOf(template, n.reclaimerFunction);
    expect(reclaimer).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: 30 });
    expect(reclaimer['Environment']).toEqual(sender['Environment']);
    expect(reclaimer['LoggingConfig']).toEqual({ LogFormat: 'JSON', LogGroup: { Ref: logicalId(n.reclaimerLogGroup) } });
  });

  it('tells the sender its batching window, which SQS counts against a quiet-hours hold (12 hours from the receive)', () => {
    const functions = Object.values(resourcesOfType(synth({ lanes: false, maxBatchingWindow: Duration.seconds(2) }).template, 'AWS::Lambda::Function'));
    const windows = functions.map((f) => (f as { Environment?: { Variables?: Record<string, unknown> } }).Environment?.Variables?.[ENV.queueBatchingWindowSeconds]);
    expect(windows).toContain('2');
  });

  it('consumes the queue with partial batch failures, batch size, batching window and maximum concurrency', () => {
    const single = synth({ lanes: false, batchSize: 25, maxBatchingWindow: Duration.seconds(2), maxConcurrency: 4 });
    const senderRef = JSON.stringify({ Ref: logicalId(single.stack.notifier.senderFunction) });
    // The sender's own mapping (the status function has one on the SES events queue).
    const mappings = Object.values(resourcesOfType(single.template, 'AWS::Lambda::EventSourceMapping')).filter((m) => JSON.stringify(m['FunctionName']) === senderRef);
    expect(mappings).toHaveLength(1);
    expect(mappings[0]).toMatchObject({
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 25,
      MaximumBatchingWindowInSeconds: 2,
      ScalingConfig: { MaximumConcurrency: 4 },
    });
  });

  it('defaults to batch size 10 and no batching window; the urgent lane at maximum concurrency 5, the bulk lane at 10', () => {
    // Each lane's sender, and the status function on the SES events queue (the ledger stream's own is the outcome feed's).
    expect(Object.keys(queueMappings(resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')))).toHaveLength(3);
    const [urgent, bulk] = n.lanes;
    expect([urgent?.name, bulk?.name]).toEqual(['urgent', 'bulk']);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(n.queue), 'Arn'] },
      FunctionName: { Ref: logicalId(n.senderFunction) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: Match.absent(),
      ScalingConfig: { MaximumConcurrency: 5 },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(bulk!.queue), 'Arn'] },
      FunctionName: { Ref: logicalId(bulk!.senderFunction) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
      MaximumBatchingWindowInSeconds: Match.absent(),
      ScalingConfig: { MaximumConcurrency: 10 },
    });
  });

  it('consumes each lane with its own maximum concurrency (lanes.urgentMaxConcurrency, maxConcurrency for bulk)', () => {
    const s = synth({ maxConcurrency: 7, lanes: { urgentMaxConcurrency: 3 } });
    const [urgent, bulk] = s.stack.notifier.lanes;
    for (const [lane, concurrency] of [[urgent, 3], [bulk, 7]] as const) {
      s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        EventSourceArn: { 'Fn::GetAtt': [logicalId(lane!.queue), 'Arn'] },
        FunctionName: { Ref: logicalId(lane!.senderFunction) },
        ScalingConfig: { MaximumConcurrency: concurrency },
      });
    }
  });

  it('without lanes, defaults to one queue consumed at maximum concurrency 10', () => {
    const s = synth({ lanes: false });
    expect(s.stack.notifier.lanes.map((l) => l.name)).toEqual(['single']);
    expect(s.stack.notifier.eventTopic).toBeUndefined();
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [logicalId(s.stack.notifier.queue), 'Arn'] },
      ScalingConfig: { MaximumConcurrency: 10 },
    });
  });

  it('keeps logs for the configured retention with a data-protection policy masking e-mail addresses and phone numbers', () => {
    const s = synth({ logRetention: logs.RetentionDays.TWO_WEEKS });
    const n = s.stack.notifier;
    const groups = [...n.lanes.map((l) => l.senderLogGroup), n.reclaimerLogGroup, n.statusLogGroup].map((g) => propertiesOf(s.template, g));
    for (const group of groups) {
      expect(group['RetentionInDays']).toBe(14);
      const policy = group['DataProtectionPolicy'] as {
        Statement: { DataIdentifier: unknown[]; Operation: Record<string, unknown> }[];
        Configuration: { CustomDataIdentifier: { Name: string; Regex: string }[] };
      };
      const identifiers = JSON.stringify(policy.Statement.map((s) => s.DataIdentifier));
      expect(identifiers).toContain(':dataprotection::aws:data-identifier/EmailAddress');
      for (const country of ['US', 'GB', 'DE', 'FR', 'ES', 'IT', 'BR']) {
        expect(identifiers).toContain(`:dataprotection::aws:data-identifier/PhoneNumber-${country}`);
      }
      expect(policy.Configuration.CustomDataIdentifier).toEqual([
        { Name: 'E164PhoneNumber', Regex: E164_LOG_MASK_PATTERN },
      ]);
      expect(policy.Statement.some((s) => 'Deidentify' in s.Operation)).toBe(true);
    }
  });

  it('uses 30-day log retention by default on every log group', () => {
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it("retains the functions' log groups", () => {
    const retained = Object.keys(template.findResources('AWS::Logs::LogGroup', { DeletionPolicy: 'Retain' }));
    const senders = n.lanes.map((lane) => lane.senderLogGroup);
    const fallback = n.node.findChild('ChannelFallback') as ChannelFallback;
    expect(retained.sort()).toEqual([...senders, n.reclaimerLogGroup, n.statusLogGroup, n.outcomeEvents.logGroup, fallback.logGroup].map(logicalId).sort());
  });

  it('bundles the AWS SDK (no external module) and ships no source map, so needs no --enable-source-maps', () => {
    expect(NOTIFIER_BUNDLING).toMatchObject({ external: [], sourcemap: false, minify: true, format: 'esm', splitting: true });
    for (const fn of [n.senderFunction, n.reclaimerFunction, n.statusFunction]) {
      const variables = (propertiesOf(template, fn)['Environment'] as { Variables: Record<string, unknown> }).Variables;
      expect(variables['NODE_OPTIONS']).toBeUndefined();
    }
  });

  it(`points Lambda at the handler export of the bundle's ${HANDLER_FILE}`, () => {
    expect(HANDLER_FILE).toBe('index.mjs');
    for (const fn of [n.senderFunction, n.reclaimerFunction, n.statusFunction]) expect(propertiesOf(template, fn)['Handler']).toBe('index.handler');
  });

  it('bundles the repository handlers by default', () => {
    expect(DEFAULT_ENTRIES.sender).toMatch(/functions\/sender\/handler\.ts$/);
    expect(DEFAULT_ENTRIES.reclaimer).toMatch(/functions\/reclaimer\/handler\.ts$/);
    expect(DEFAULT_ENTRIES.status).toMatch(/functions\/status\/handler\.ts$/);
  });
});

describe('reclaimer schedule', () => {
  it('invokes the reclaimer every minute by default', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(n.reclaimerFunction), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
  });

  it('neither retries a failed run nor runs a late one (the next scheduled run does the same work)', () => {
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: logicalId(n.reclaimerFunction) },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
  });

  it('drops a run once the next one is due (at most 6 hours, Lambda\'s limit)', () => {
    for (const [minutes, age] of [
      [5, 300],
      [720, 21_600],
    ] as const) {
      const { stack: s, template: t } = synth({ reclaimerSchedule: Duration.minutes(minutes) });
      t.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: logicalId(s.notifier.reclaimerFunction) },
        MaximumEventAgeInSeconds: age,
      });
    }
  });

  it('takes the rate from props', () => {
    synth({ reclaimerSchedule: Duration.minutes(5) }).template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
    });
  });
});

/** The event source mappings that read a queue (not the ledger's stream). */
function queueMappings(mappings: Record<string, Record<string, unknown>>): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(mappings).filter(([, m]) => !JSON.stringify(m['EventSourceArn']).includes('StreamArn')));
}
