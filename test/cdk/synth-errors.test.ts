import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configurationReport, settingsNamedIn } from '../../lib/configuration-report';
import { NotifierContextError } from '../../lib/context-config';
import { NotifierConfigurationError } from '../../lib/notifier-validation';
import { tempDir } from '../support/temp-dir';

const ROOT = join(__dirname, '..', '..');

/** bin/app.ts as `cdk synth` runs it: the context and the output folder in the environment. */
function synth(context: Record<string, unknown>) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'bin/app.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, CDK_OUTDIR: tempDir('notifier-synth-error-'), CDK_CONTEXT_JSON: JSON.stringify(context) },
  });
}

const STACK_FRAME = /^\s+at /m;

describe('a configuration error at synth (the defect: its clear message came inside a full Node stack trace)', () => {
  it('prints the message and the setting to change, no stack trace, and exits non-zero: a reserved From domain', () => {
    const result = synth({ 'notifier:emailFrom': 'notify@example.com', 'notifier:smsMonthlySpendLimitUsd': 20 });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('emailFrom (notify@example.com) uses the reserved domain example.com');
    expect(result.stderr).toContain('change: notifier:emailFrom');
    expect(result.stderr).toContain('change: notifier:smsMonthlySpendLimitUsd, notifier:smsSpendAlarmThresholdUsd, notifier:smsEnabled');
    expect(result.stderr).not.toMatch(STACK_FRAME);
    expect(result.stderr).not.toMatch(/NotifierConfigurationError|Node\.js v/);
  }, 150_000);

  it('prints the missing setting and how to give it', () => {
    const result = synth({});
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Context notifier:emailFrom is required');
    expect(result.stderr).toContain('Change: notifier:emailFrom');
    expect(result.stderr).not.toMatch(STACK_FRAME);
  }, 150_000);

  it('prints a value of the wrong type with its key', () => {
    const result = synth({ 'notifier:emailFrom': 'notify@mail.acme-notifier.dev', 'notifier:claimTimeoutSeconds': 'two minutes' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Context notifier:claimTimeoutSeconds ("two minutes") must be a number');
    expect(result.stderr).not.toMatch(STACK_FRAME);
  }, 150_000);
});

describe('the configuration report', () => {
  it('names each setting a violation is about, in its order, and only whole names', () => {
    expect(settingsNamedIn('smsMonthlySpendLimitUsd (20) and smsSpendAlarmThresholdUsd (undefined) need smsEnabled (false)')).toEqual([
      'smsMonthlySpendLimitUsd',
      'smsSpendAlarmThresholdUsd',
      'smsEnabled',
    ]);
    expect(settingsNamedIn('xemailFrom and smsEnabledLater are not settings')).toEqual([]);
  });

  it('leaves any other error to its stack trace (a bug, not a setting)', () => {
    expect(configurationReport(new TypeError('x is undefined'))).toBeUndefined();
    expect(configurationReport(new NotifierContextError(['notifier:a'], 'm'))).toContain('Change: notifier:a');
    expect(configurationReport(new NotifierConfigurationError(['emailFrom (x) is bad']))).toContain('change: notifier:emailFrom');
  });
});
