#!/usr/bin/env node
/**
 * The `browserdeck` command (package.json `bin`): registers tsx, which runs the TypeScript
 * sources as `npm run serve` does (no build step), then hands over to src/cli/main.ts.
 * In-process rather than `node --import tsx` so that signals reach the command itself.
 */
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
