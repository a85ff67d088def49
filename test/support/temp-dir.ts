import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_TEMP_ROOT } from './temp-root';

/** A fresh temp folder inside the run's temp root (removed when the run ends; see temp-root.ts). */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(process.env[TEST_TEMP_ROOT] ?? tmpdir(), prefix));
}
