import { describe, expect, it } from 'vitest';
import { ALARM, ALARM_GROUPS, ALARM_TABLE, joinAlarmGroups } from '../../lib/alarm-table';

describe('the alarm table is joined from one part per concern', () => {
  it('has every alarm name once, in the order of ALARM', () => {
    expect(Object.keys(ALARM_TABLE)).toEqual(Object.values(ALARM));
  });

  it('fails if a row is in two parts, naming the alarm and both parts', () => {
    const twice = { ...ALARM_GROUPS, extra: { [ALARM.ledgerErrors]: ALARM_GROUPS.ledger[ALARM.ledgerErrors] } };
    expect(() => joinAlarmGroups(twice)).toThrow('LedgerErrors: rows in ledger, extra');
  });

  it('fails if an alarm has no row, naming it', () => {
    const { ledger: _ledger, ...withoutLedger } = ALARM_GROUPS;
    expect(() => joinAlarmGroups(withoutLedger)).toThrow(/LedgerErrors: no row in any group; LedgerThrottled: no row in any group/);
  });
});
