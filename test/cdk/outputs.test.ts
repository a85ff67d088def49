import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ALARM } from '../../lib/notifier-alarms';
import { RETAINED_QUEUE_OUTPUTS } from '../../scripts/aws-check/plan';
import { alarmProbe } from '../../scripts/aws-check/probes';
import { EUM_PROPS, logicalId, synth } from './helpers';

const { stack, template } = synth();
const n = stack.notifier;

describe('stack outputs npm run test:aws reads', () => {
  it('names the SES events queue and its dead-letter queue, so the check can delete them after destroy (they are retained)', () => {
    template.hasOutput('SesEventQueueUrl', { Value: { Ref: logicalId(n.deliveryStatus.sesEvents.queue) } });
    template.hasOutput('SesEventDeadLetterQueueUrl', {
      Value: { Ref: logicalId(n.deliveryStatus.sesEvents.deadLetterQueue) },
      Description: Match.stringLikeRegexp('runbook: docs/operations.md#seseventdeadletters'),
    });
    expect(Object.keys(template.toJSON()['Outputs'] as object)).not.toContain('SesEventRuleDeadLetterQueueUrl');
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

describe('what npm run test:aws deletes after destroy', () => {
  /** The queues a stack RETAINs, and the ones the runner's outputs name (an output a stack lacks is skipped by the runner). */
  function retainedAndNamed(synthesized: Pick<ReturnType<typeof synth>, 'template'>) {
    const outputs = synthesized.template.findOutputs('*') as Record<string, { Value?: { Ref?: string } }>;
    const queues = synthesized.template.findResources('AWS::SQS::Queue') as Record<string, { DeletionPolicy?: string }>;
    const retained = Object.entries(queues)
      .filter(([, q]) => q.DeletionPolicy === 'Retain')
      .map(([id]) => id)
      .sort();
    const named = RETAINED_QUEUE_OUTPUTS.flatMap((name) => (outputs[name] ? [outputs[name].Value?.Ref] : [])).sort();
    return { retained, named };
  }

  it('names, among the outputs, exactly the queues the default stack retains on destroy', () => {
    const { retained, named } = retainedAndNamed({ template });
    expect(named).toEqual(retained);
    // The lanes' two dead-letter queues, the failed status events, the SES events queue and its dead letters, the outcome and the fallback batches given up on.
    expect(retained).toHaveLength(7);
  });

  it('and those of a stack that texts through End User Messaging, its events queue and their dead letters too', () => {
    const { retained, named } = retainedAndNamed(synth(EUM_PROPS));
    expect(named).toEqual(retained);
    expect(retained).toHaveLength(9);
  });
});
