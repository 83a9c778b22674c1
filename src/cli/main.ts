/**
 * `browserdeck`: the command line of a Browserdeck engine, built on the official client
 * (@onkernel/sdk) and commander. One file per command under commands/. Exit codes: 0 ok,
 * 1 the engine refused or could not be reached, 2 a usage error; errors are one line on stderr.
 */
import { Command, CommanderError } from 'commander';
import { describeError, EXIT_OK, EXIT_USAGE } from './cli-error.js';
import { resolveUrl } from './connection.js';
import { registerServe } from './commands/serve.js';
import { registerBackup } from './commands/backup.js';
import { registerLogin } from './commands/login.js';
import { registerBrowsers } from './commands/browsers.js';
import { registerDeploy } from './commands/deploy.js';
import { registerInvoke } from './commands/invoke.js';
import { registerLogs } from './commands/logs.js';
import { registerProfiles } from './commands/profiles.js';
import { registerPools } from './commands/pools.js';
import { registerMcp } from './commands/mcp.js';

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' ').trim();

const program = new Command('browserdeck')
  .description('Browserdeck from a terminal: run an engine, drive its browsers, deploy and invoke apps, bridge MCP')
  .option('--json', 'machine output only: JSON on stdout')
  .option('--url <url>', 'the engine (default: BROWSERDECK_URL, KERNEL_BASE_URL, the login file, http://127.0.0.1:8420)')
  .showSuggestionAfterError()
  .exitOverride()
  .configureOutput({ outputError: (str, write) => write(`${oneLine(str)} (see --help)\n`) });

registerServe(program);
registerBackup(program);
registerLogin(program);
registerBrowsers(program);
registerDeploy(program);
registerInvoke(program);
registerLogs(program);
registerProfiles(program);
registerPools(program);
registerMcp(program);

let code = EXIT_OK;
try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // Help and version end 0; anything commander refused is a usage error (it printed it).
    code = err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  } else {
    let url: string | undefined;
    try {
      url = resolveUrl(program.opts<{ url?: string }>().url);
    } catch {}
    const d = describeError(err, url);
    process.stderr.write(`browserdeck: ${oneLine(d.line)}\n`);
    code = d.code;
  }
}
// stdout/stderr to a pipe or file are synchronous on Linux: nothing is lost by exiting now, and
// an idle keep-alive socket of the client cannot hold the process open.
process.exit(process.exitCode && code === EXIT_OK ? Number(process.exitCode) : code);
