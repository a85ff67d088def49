/**
 * The validation library of the functions: zod 4's tree-shakable `zod/mini` API, with zod's English
 * messages. Import it as `import * as z from './schema'`.
 *
 * Why mini: `import { z } from 'zod'` puts all of classic zod in every bundle (about 460 KB minified,
 * 260 KB of it the locales), because its `z` namespace cannot be tree-shaken; mini's functions can.
 * Why the `config` here: classic zod installs English messages by itself, mini ships none (every issue
 * would read "Invalid input"); the same `en` locale keeps every message as classic zod words it.
 */
import { en } from 'zod/locales';
import { config } from 'zod/mini';

config(en());

export * from 'zod/mini';
