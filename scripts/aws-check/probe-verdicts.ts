import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { AlarmProbe, DeadLetterProbe } from './probes';

/** Where one probe stands: like a message verdict, with what it proves for the report. */
export type ProbeVerdict =
  | { readonly kind: 'passed'; readonly proves: string }
  | { readonly kind: 'waiting'; readonly proves: string; readonly why: string }
  | { readonly kind: 'failed'; readonly proves: string; readonly why: string };

export const ALARM_PROVES = 'CloudWatch delivered an alarm through the alarm topic (its policy and key) to a subscriber';
export const DEAD_LETTER_PROVES = 'a record that is not JSON reached the DLQ with its reason attributes';

/** The alarm JSON inside an SNS notification delivered to SQS (not raw), or undefined when the body is none. */
function alarmOf(body: string | undefined): { AlarmName?: unknown; NewStateValue?: unknown; NewStateReason?: unknown } | undefined {
  try {
    const envelope = JSON.parse(body ?? '') as { Type?: unknown; Message?: unknown };
    if (envelope.Type !== 'Notification' || typeof envelope.Message !== 'string') return undefined;
    const alarm = JSON.parse(envelope.Message) as unknown;
    return typeof alarm === 'object' && alarm !== null ? alarm : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Passed once a notification for the probe's alarm, in state ALARM with the run's reason, is in the
 * subscriber queue. Other notifications (the OK transition that follows, a real alarm) are ignored.
 */
export function judgeAlarmDelivery(probe: AlarmProbe, alarmName: string, bodies: readonly (string | undefined)[]): ProbeVerdict {
  const ours = bodies.map(alarmOf).filter((a) => a?.AlarmName === alarmName);
  if (ours.some((a) => a?.NewStateValue === 'ALARM' && a.NewStateReason === probe.reason)) return { kind: 'passed', proves: ALARM_PROVES };
  return {
    kind: 'waiting',
    proves: ALARM_PROVES,
    why: ours.length === 0 ? `no notification for ${alarmName} yet` : `${ours.length} notification(s) for ${alarmName}, none ALARM with this run's reason`,
  };
}

function stringAttribute(attributes: Record<string, MessageAttributeValue> | undefined, name: string): string | undefined {
  const value = attributes?.[name];
  return value?.DataType === 'String' ? value.StringValue : undefined;
}

/**
 * Judges the DLQ copy of the probe's record (found by its body): every expected attribute with its
 * value, the detail present, and the source id the runner's send returned. No copy yet is waiting.
 */
export function judgeDeadLetter(probe: DeadLetterProbe, sourceMessageId: string, messages: readonly Message[]): ProbeVerdict {
  const copies = messages.filter((m) => m.Body === probe.body);
  if (copies.length === 0) return { kind: 'waiting', proves: DEAD_LETTER_PROVES, why: 'not in the dead-letter queue yet' };
  const problems = copies.map((m) => deadLetterProblems(probe, sourceMessageId, m));
  if (problems.some((p) => p.length === 0)) return { kind: 'passed', proves: DEAD_LETTER_PROVES };
  return { kind: 'failed', proves: DEAD_LETTER_PROVES, why: (problems[0] ?? []).join('; ') };
}

function deadLetterProblems(probe: DeadLetterProbe, sourceMessageId: string, m: Message): string[] {
  const problems: string[] = [];
  for (const [name, want] of Object.entries(probe.attributes)) {
    const got = stringAttribute(m.MessageAttributes, name);
    if (got !== want) problems.push(`${name} is ${got ?? 'missing'}, expected ${want}`);
  }
  for (const name of probe.presentAttributes) {
    if (!stringAttribute(m.MessageAttributes, name)) problems.push(`${name} is missing`);
  }
  const source = stringAttribute(m.MessageAttributes, probe.sourceMessageIdAttribute);
  if (source !== sourceMessageId) problems.push(`${probe.sourceMessageIdAttribute} is ${source ?? 'missing'}, expected ${sourceMessageId}`);
  return problems;
}

/** After the deadline, a probe still waiting has failed. */
export function finalProbeVerdict(verdict: ProbeVerdict): ProbeVerdict {
  return verdict.kind === 'waiting' ? { kind: 'failed', proves: verdict.proves, why: `timed out: ${verdict.why}` } : verdict;
}

export function probeLine(v: ProbeVerdict): string {
  return v.kind === 'passed' ? `PASS ${v.proves}` : `${v.kind === 'failed' ? 'FAIL' : 'WAIT'} ${v.proves}: ${v.why}`;
}
