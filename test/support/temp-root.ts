import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Variable naming the folder under which a test run keeps its temp files. */
export const TEST_TEMP_ROOT = 'NOTIFIER_TEST_TEMP_ROOT';

/**
 * Vitest global setup: one folder for the whole run's temp files, removed at teardown. Test workers
 * are stopped without an `exit` event, so a per-process clean-up would leave a folder per test run
 * behind (a mutation run makes tens of thousands).
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'notifier-test-run-'));
  process.env[TEST_TEMP_ROOT] = root;
  return () => rmSync(root, { recursive: true, force: true });
}
