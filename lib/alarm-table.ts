import { ABUSE_ALARMS } from './alarms/abuse-alarms';
import { CONSENT_ALARMS } from './alarms/consent-alarms';
import { ALARM, type AlarmName } from './alarms/alarm-names';
import type { AlarmGroup, AlarmSpec } from './alarms/alarm-spec';
import { DELIVERY_STATUS_ALARMS } from './alarms/delivery-status-alarms';
import { FUNCTION_ALARMS } from './alarms/function-alarms';
import { LEDGER_ALARMS } from './alarms/ledger-alarms';
import { OUTCOME_ALARMS } from './alarms/outcome-alarms';
import { FALLBACK_ALARMS } from './alarms/fallback-alarms';
import { PROVIDER_ALARMS } from './alarms/provider-alarms';
import { QUEUE_ALARMS } from './alarms/queue-alarms';
import { SENDING_ALARMS } from './alarms/sending-alarms';

export { ALARM, RUNBOOK_PAGE, runbookLink, type AlarmName } from './alarms/alarm-names';
export type { AlarmGroup, AlarmLane, AlarmSources, AlarmSpec, NotifierFunctions } from './alarms/alarm-spec';
export { BACKLOG_AGE_EVALUATION_PERIODS } from './alarms/queue-alarms';

/** The parts of the table, by what their alarms watch (lib/alarms/<concern>-alarms.ts). */
export const ALARM_GROUPS = {
  sending: SENDING_ALARMS,
  abuse: ABUSE_ALARMS,
  consent: CONSENT_ALARMS,
  providers: PROVIDER_ALARMS,
  queues: QUEUE_ALARMS,
  ledger: LEDGER_ALARMS,
  deliveryStatus: DELIVERY_STATUS_ALARMS,
  functions: FUNCTION_ALARMS,
  outcomes: OUTCOME_ALARMS,
  fallback: FALLBACK_ALARMS,
} as const;

/**
 * The parts joined into one row per name, in the order of {@link ALARM} (the order alarms are created and listed).
 * Throws when a name has no row or more than one: a row must live in exactly one part.
 */
export function joinAlarmGroups(groups: Readonly<Record<string, AlarmGroup>>): { readonly [N in AlarmName]: AlarmSpec } {
  const owners = new Map<AlarmName, string[]>();
  for (const [group, rows] of Object.entries(groups)) {
    for (const name of Object.keys(rows) as AlarmName[]) owners.set(name, [...(owners.get(name) ?? []), group]);
  }
  const problems = Object.values(ALARM).flatMap((name) => {
    const parts = owners.get(name) ?? [];
    return parts.length === 1 ? [] : [`${name}: ${parts.length === 0 ? 'no row in any group' : `rows in ${parts.join(', ')}`}`];
  });
  if (problems.length > 0) throw new Error(`The alarm table needs exactly one row per alarm name: ${problems.join('; ')}`);
  return Object.fromEntries(
    Object.values(ALARM).map((name) => [name, groups[owners.get(name)![0]!]![name]!]),
  ) as { readonly [N in AlarmName]: AlarmSpec };
}

/**
 * Every alarm of the notifier, one row each: the alarms, the dashboard's alarm widget and the runbook's
 * headings (checked by `test/docs/runbook.test.ts`) are all made from or checked against this table.
 * To add an alarm: a name in {@link ALARM}, a row in the part of {@link ALARM_GROUPS} whose concern it watches
 * (the type requires one per name), a runbook entry.
 */
export const ALARM_TABLE: { readonly [N in AlarmName]: AlarmSpec } = joinAlarmGroups(ALARM_GROUPS);

