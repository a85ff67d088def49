import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { notifierBuildOptions } from '../../lib/function-bundle';
import { NOTIFIER_RUNTIMES, type NotifierRuntime } from '../../lib/lambda-runtime';
import { DEFAULT_ENTRIES } from '../../lib/notifier-function';
import { notifierPropsFromContext } from '../../lib/context-config';
import { resourcesOfType, synth } from './helpers';

/** Every function of a stack that manages the SMS spend limit and the SMS delivery-status logs too (custom resources). */
const EVERY_FUNCTION = { smsMonthlySpendLimitUsd: 20, smsDeliveryStatusLogs: true, smsDeliveryStatusSuccessSamplingPercent: 100 } as const;

function runtimes(runtime?: NotifierRuntime): Record<string, unknown> {
  const { template } = synth({ ...EVERY_FUNCTION, ...(runtime ? { lambdaRuntime: runtime } : {}) });
  return Object.fromEntries(
    Object.entries(resourcesOfType(template, 'AWS::Lambda::Function')).map(([id, r]) => [id, (r as { Runtime?: unknown }).Runtime]),
  );
}

describe('the Lambda runtime', () => {
  it('runs every function on Node.js 24 by default, the account-setting calls included', () => {
    const all = runtimes();
    // Two senders, the reclaimer, the status function, the outcome publisher and the fallback trigger; eight account-setting calls (the spend limit, account
    // logging, and three calls on each SMS delivery-status log group). No function of CDK's own is in the stack.
    const ids = Object.keys(all);
    expect(ids.filter((id) => /(Sender|Reclaimer|DeliveryStatus)[0-9A-F]{8}$/.test(id))).toHaveLength(4);
    expect(ids.filter((id) => /(LogGroup|AccountLogging|SmsMonthlySpendLimit)Function[0-9A-F]{8}$/.test(id))).toHaveLength(8);
    expect(ids.filter((id) => /Outcome/.test(id))).toHaveLength(1);
    expect(ids.filter((id) => /ChannelFallback/.test(id))).toHaveLength(1);
    expect(ids).toHaveLength(14);
    expect(new Set(Object.values(all))).toEqual(new Set(['nodejs24.x']));
  });

  it('runs every function on Node.js 22 when lambdaRuntime is nodejs22.x', () => {
    expect(new Set(Object.values(runtimes('nodejs22.x')))).toEqual(new Set(['nodejs22.x']));
  });

  it('fails if lambdaRuntime is not a runtime the notifier is built for, naming the value and the choices', () => {
    expect(() => synth({ lambdaRuntime: 'nodejs20.x' as NotifierRuntime })).toThrow(
      /lambdaRuntime \(nodejs20\.x\) must be one of nodejs24\.x, nodejs22\.x/,
    );
  });

  it('reads notifier:lambdaRuntime from the context', () => {
    const app = new App({ context: { 'notifier:emailFrom': 'notifications@mail.acme-notifier.dev', 'notifier:lambdaRuntime': 'nodejs22.x' } });
    expect(notifierPropsFromContext(app).lambdaRuntime).toBe('nodejs22.x');
  });

  it.each(NOTIFIER_RUNTIMES.map((r) => [r, `node${r.slice('nodejs'.length, -'.x'.length)}`]))(
    'bundles for %s with esbuild target %s',
    (runtime, target) => {
      expect(notifierBuildOptions(DEFAULT_ENTRIES.sender, '/tmp/out', { runtime }).target).toBe(target);
    },
  );

  it('bundles for Node.js 24 when no runtime is named', () => {
    expect(notifierBuildOptions(DEFAULT_ENTRIES.sender, '/tmp/out').target).toBe('node24');
  });
});
