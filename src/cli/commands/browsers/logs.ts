/**
 * `browserdeck browsers logs <id>`: a session's service logs (`--service browser|display|session|…`)
 * or a file tailed from its filesystem (`--path`). Prints what is there and ends; --follow keeps
 * streaming until Ctrl-C. --json prints one JSON object per line.
 */
import type { Command } from 'commander';
import { contextOf } from '../../command-context.js';
import { usageError } from '../../cli-error.js';

interface LogsFlags {
  service?: string;
  path?: string;
  follow?: boolean;
}

export function registerBrowsersLogs(browsers: Command): void {
  browsers
    .command('logs')
    .description("a session's service logs, or a file of it tailed")
    .argument('<id>', 'session id or name')
    .option('--service <name>', 'browser, display, recorder or session', 'session')
    .option('--path <file>', 'tail this file of the session instead')
    .option('-f, --follow', 'keep streaming new lines')
    .action(async (id: string, f: LogsFlags, cmd: Command) => {
      const ctx = contextOf(cmd);
      if (f.path && !f.path.startsWith('/')) throw usageError(`--path takes an absolute path in the session, not '${f.path}'`);
      const stream = await ctx
        .client()
        .browsers.logs.stream(
          id,
          f.path
            ? { source: 'path', path: f.path, follow: f.follow === true }
            : { source: 'supervisor', supervisor_process: f.service, follow: f.follow === true },
        );
      for await (const e of stream) ctx.out.event(e, () => process.stdout.write(`${e.timestamp}  ${e.message}\n`));
    });
}
