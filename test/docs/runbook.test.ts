import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALARM_TABLE, RUNBOOK_PAGE } from '../../lib/alarm-table';

const page = readFileSync(join(__dirname, '..', '..', RUNBOOK_PAGE), 'utf8');

/** The `###` headings of the page's "Alarm runbook" section, in order. */
function runbookHeadings(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Alarm runbook')) ?? '';
  return [...section.matchAll(/^### (.+)$/gm)].map((match) => match[1]!.trim());
}

describe('the alarm runbook lists exactly the alarms of the table', () => {
  it('has one heading per alarm and none for an alarm that does not exist', () => {
    expect([...runbookHeadings(page)].sort()).toEqual(Object.keys(ALARM_TABLE).sort());
  });

  it('reads headings of its own section only', () => {
    expect(runbookHeadings('## Metrics\n### Sent\n## Alarm runbook\n### A\n### B\n## Later\n### C\n')).toEqual(['A', 'B']);
  });
});
