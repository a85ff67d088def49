#!/usr/bin/env node
// The `notifier` bin. A clone of the repository has the TypeScript sources and tsx (a dev dependency): run those.
// The installed package ships no sources, only the CLI compiled to dist/cli/ with its runtime dependencies.
import { existsSync } from 'node:fs';

const source = new URL('./notifier.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/cli/installed-notifier.js');
}
