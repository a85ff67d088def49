import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/**
 * Root folder of the `idempotent-notifier` package this code runs from: the repository in a checkout,
 * `node_modules/idempotent-notifier` in an app that depends on it. Node resolves the package's own name
 * (a self-reference through its `exports`) from this file, so the answer is the same whether the construct
 * runs from `lib/*.ts` or compiled from `dist/lib/*.js`, and whatever the caller's working directory.
 */
export const PACKAGE_ROOT = dirname(createRequire(import.meta.url).resolve('idempotent-notifier/package.json'));
