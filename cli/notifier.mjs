#!/usr/bin/env node
// Launcher for the TypeScript CLI: registers tsx's loader, then runs cli/notifier.ts.
import { register } from 'tsx/esm/api';

register();
await import('./notifier.ts');
