import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ALARM } from '../../lib/notifier-alarms';
import { alarmProbe } from '../../scripts/aws-check/probes';
import { logicalId, synth } from './helpers';

const { stack, template } = synth();
const n = stack.notifier;

describe('stack outputs npm run test:aws reads', () => {
  it('names the SES-rule dead-letter queue, so the check can delete it after destroy (it is retained)', () => {
    template.hasOutput('SesEventRuleDeadLetterQueueUrl', {
      Value: { Ref: logicalId(n.deliveryStatus.sesEventRuleDeadLetterQueue) },
      Description: Match.stringLikeRegexp('runbook: docs/operations.md#'),
    });
  });

  it('names the ledger-errors alarm under the output the check reads, so it can set that alarm', () => {
    const alarm = n.alarms[ALARM.ledgerErrors];
    expect(alarm).toBeDefined();
    expect(alarmProbe('ab12cd34').alarmNameOutput).toBe('LedgerErrorsAlarmName');
    template.hasOutput('LedgerErrorsAlarmName', { Value: { Ref: logicalId(alarm ?? n) } });
  });

  it('names the dead-letter and failed-events queues it also deletes', () => {
    template.hasOutput('DeadLetterQueueUrl', { Value: { Ref: logicalId(n.deadLetterQueue) } });
    template.hasOutput('StatusFailedEventQueueUrl', { Value: { Ref: logicalId(n.deliveryStatus.failedEventQueue) } });
  });
});
