/**
 * `npm run serve -- [--port N] [--host H] [--data-dir DIR] … ` (every flag: config-options.ts, `--help`)
 * Runs the engine and the operator UI until SIGINT/SIGTERM, then stops cleanly.
 * `npm run serve -- backup <file>` / `restore <file> [--force]`: the SQLite store's backup and restore.
 * The same as `browserdeck serve …` (src/cli/); both run serve.ts.
 */
import { runServe } from './serve.js';

process.exitCode = await runServe(process.argv.slice(2));
