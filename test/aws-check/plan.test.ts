import { describe, expect, it } from 'vitest';
import { parseNotificationBody } from '../../functions/core/event/notification-event';
import { notifierPropsFromContext } from '../../lib/context-config';
import { awsCheckOptionViolations, deployArgs, destroyArgs, planAwsCheck, RETAINED_QUEUE_OUTPUTS, SES_SIMULATOR } from '../../scripts/aws-check/plan';
import { NotifierStack } from '../../lib/notifier-stack';
import { Template } from 'aws-cdk-lib/assertions';
import { Stack } from 'aws-cdk-lib';
import { newApp } from '../cdk/helpers';

const options = { runId: 'ab12cd34', emailFrom: 'check@mail.acme-notifier.dev', nowIso: '2026-11-30T15:00:00.000Z' };

describe('npm run test:aws plan', () => {
  const plan = planAwsCheck(options);

  it('deploys an isolated copy under a stack name unique to the run', () => {
    expect(plan.stackName).toBe('NotifierCheck-ab12cd34');
    expect(plan.context['notifier:stackName']).toBe(plan.stackName);
    expect(planAwsCheck({ ...options, runId: 'ffff0000' }).stackName).not.toBe(plan.stackName);
  });

  it('makes the copy disposable: no table deletion protection, one-day logs, SMS and push off by default', () => {
    expect(plan.context).toMatchObject({
      'notifier:tableDeletionProtection': 'false',
      'notifier:logRetentionDays': '1',
      'notifier:smsEnabled': 'false',
      'notifier:smsDeliveryStatusLogs': 'false',
      'notifier:pushEnabled': 'false',
    });
  });

  it('passes only context keys the app knows, with values it accepts', () => {
    const stack = new Stack(newApp(plan.context), 'Check');
    expect(notifierPropsFromContext(stack)).toMatchObject({ emailFrom: options.emailFrom, tableDeletionProtection: false });
  });

  it('sends to the three SES mailbox simulator addresses, the success one twice', () => {
    const addresses = plan.sends.map((e) => e.recipients[0]?.email);
    expect(addresses).toEqual([SES_SIMULATOR.success, SES_SIMULATOR.bounce, SES_SIMULATOR.complaint, SES_SIMULATOR.success]);
    expect(plan.sends[0]).toBe(plan.sends[3]);
  });

  it('sends events the sender accepts', () => {
    for (const event of plan.sends) {
      expect(parseNotificationBody(JSON.stringify(event)).event).toEqual(event);
    }
  });

  it('expects Delivery, Bounce and Complaint as the final delivery status of each e-mail', () => {
    expect(plan.expected.map((e) => [e.recipientId, e.finalStatus])).toEqual([
      ['success', 'Delivery'],
      ['bounce', 'Bounce'],
      ['complaint', 'Complaint'],
      ['reclaim', 'Delivery'],
    ]);
  });

  it('adds one SMS, with delivery-status logs, only when a number is given', () => {
    const withSms = planAwsCheck({ ...options, smsTo: '+14155550100', smsSpendLimitUsd: 5 });
    expect(withSms.context).toMatchObject({
      'notifier:smsEnabled': 'true',
      'notifier:smsCountries': 'US',
      'notifier:smsDeliveryStatusLogs': 'true',
      'notifier:smsMonthlySpendLimitUsd': '5',
    });
    expect(() => planAwsCheck({ ...options, smsTo: '+14155550100' })).toThrow(
      /NOTIFIER_CHECK_SMS_SPEND_LIMIT_USD \(undefined\) is required with NOTIFIER_CHECK_SMS_TO/,
    );
    expect(withSms.sends.at(-1)?.recipients).toEqual([{ recipientId: 'sms', phone: '+14155550100', channels: ['sms'] }]);
    expect(withSms.expected.at(-1)).toMatchObject({ channel: 'sms', finalStatus: 'SUCCESS' });
  });

  it('deploys and destroys with the same context, never asking for approval', () => {
    const deploy = deployArgs(plan, '/tmp/out.json');
    expect(deploy.slice(0, 7)).toEqual(['cdk', 'deploy', plan.stackName, '--require-approval', 'never', '--no-notices', '--outputs-file']);
    expect(destroyArgs(plan).slice(0, 4)).toEqual(['cdk', 'destroy', plan.stackName, '--force']);
    const contextOf = (args: string[]) => args.filter((_, i) => args[i - 1] === '-c');
    expect(contextOf(destroyArgs(plan))).toEqual(contextOf(deploy));
    expect(contextOf(deploy)).toContain(`notifier:emailFrom=${options.emailFrom}`);
  });
});

describe('npm run test:aws options', () => {
  it('fails if emailFrom is missing or reserved, the run id malformed or the phone number not E.164, naming each', () => {
    const violations = awsCheckOptionViolations({ runId: 'AB', emailFrom: 'x@example.com', smsTo: '0044 1234', smsSpendLimitUsd: 1, nowIso: 'now' });
    expect(violations).toEqual([
      expect.stringMatching(/^NOTIFIER_CHECK_EMAIL_FROM: emailFrom \(x@example\.com\) uses the reserved domain example\.com/),
      'run id (AB) must be 4 to 16 lowercase letters or digits',
      'NOTIFIER_CHECK_SMS_TO (0044 1234) must be an E.164 phone number (+ and 7 to 15 digits)',
      'start time (now) is not an ISO-8601 time',
    ]);
    expect(() => planAwsCheck({ ...options, emailFrom: '' })).toThrow(/npm run test:aws cannot run:\n - NOTIFIER_CHECK_EMAIL_FROM: emailFrom is required/);
  });
});

describe('the copy the plan deploys', () => {
  const plan = planAwsCheck(options);

  it('synthesizes with every output the runner reads, the probes\' included', () => {
    const app = newApp(plan.context);
    const stack = new NotifierStack(app, plan.stackName);
    const outputs = Object.keys(Template.fromStack(stack).findOutputs('*'));
    expect(outputs).toEqual(
      expect.arrayContaining(['QueueUrl', 'LedgerTableName', 'AlarmTopicArn', plan.alarm.alarmNameOutput, ...RETAINED_QUEUE_OUTPUTS.filter((o) => !o.startsWith('Sms') && o !== 'SesEventRuleDeadLetterQueueUrl')]),
    );
  });

  it('texts through End User Messaging when an origination identity is given: its events are the evidence, its queues retained and named', () => {
    const identity = 'arn:aws:sms-voice:us-east-1:123456789012:pool/pool-0123456789abcdef';
    const eum = planAwsCheck({ ...options, smsTo: '+14155550100', smsSpendLimitUsd: 5, smsOriginationIdentity: identity });
    expect(eum.context).toMatchObject({
      'notifier:smsProvider': 'end-user-messaging',
      'notifier:smsOriginationIdentities': identity,
      'notifier:smsDeliveryStatusLogs': 'false',
    });
    expect(eum.expected.at(-1)).toMatchObject({ channel: 'sms', finalStatus: 'TEXT_DELIVERED', intermediateStatuses: ['TEXT_QUEUED', 'TEXT_PENDING', 'TEXT_SUCCESSFUL'] });
    expect(notifierPropsFromContext(new Stack(newApp(eum.context), 'Props'))).toMatchObject({ smsProvider: 'end-user-messaging' });
    const outputs = Object.keys(Template.fromStack(new NotifierStack(newApp(eum.context), eum.stackName)).findOutputs('*'));
    expect(outputs).toEqual(expect.arrayContaining([...RETAINED_QUEUE_OUTPUTS.filter((o) => o !== 'SesEventRuleDeadLetterQueueUrl'), 'SmsConfigurationSetName']));
    expect(() => planAwsCheck({ ...options, smsOriginationIdentity: identity })).toThrow(/NOTIFIER_CHECK_SMS_ORIGINATION_IDENTITY .* needs NOTIFIER_CHECK_SMS_TO/);
  });

  it('deploys with the claim timeout the planted claim is older than, and a reclaimer every minute', () => {
    const props = notifierPropsFromContext(new Stack(newApp(plan.context), 'Check'));
    expect(props.claimTimeout?.toMilliseconds()).toBe(plan.reclaim.row.leaseExpiresAt - plan.reclaim.row.claimedAt);
    expect(props.reclaimerSchedule?.toMinutes()).toBe(1);
  });
});
