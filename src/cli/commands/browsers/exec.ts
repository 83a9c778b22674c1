/**
 * `browserdeck browsers exec <id> -- <command> [args…]`: runs a command in the session's jail
 * and waits for it. For people its stdout and stderr are written through and the CLI exits with
 * its exit code (like ssh); with --json it prints `{exit_code, stdout, stderr, duration_ms}` and
 * exits 0.
 */
import type { Command } from 'commander';
import type { ProcessExecParams } from '@onkernel/sdk/resources/browsers/process';
import { contextOf, intOption } from '../../command-context.js';
import { parseEnvPairs } from '../../env-pairs.js';

interface ExecFlags {
  cwd?: string;
  timeout?: number;
  asRoot?: boolean;
  env?: string[];
}

const decode = (b64?: string) => (b64 ? Buffer.from(b64, 'base64') : Buffer.alloc(0));

export function registerBrowsersExec(browsers: Command): void {
  browsers
    .command('exec')
    .description("run a command in a session's jail and wait for it")
    .argument('<id>', 'session id or name')
    .argument('<command>', 'the program')
    .argument('[args...]', 'its arguments (put -- before them when they start with -)')
    .option('--cwd <dir>', 'working directory')
    .option('--timeout <seconds>', 'kill it after this long', intOption)
    .option('--as-root', 'run as root inside the jail')
    .option('--env <KEY=VALUE...>', 'environment variables')
    .action(async (id: string, command: string, args: string[], f: ExecFlags, cmd: Command) => {
      const ctx = contextOf(cmd);
      const body: ProcessExecParams = { command, args };
      if (f.cwd) body.cwd = f.cwd;
      if (f.timeout !== undefined) body.timeout_sec = f.timeout;
      if (f.asRoot) body.as_root = true;
      if (f.env?.length) body.env = parseEnvPairs(f.env);
      const r = await ctx.client().browsers.process.exec(id, body);
      const stdout = decode(r.stdout_b64);
      const stderr = decode(r.stderr_b64);
      ctx.out.result(
        { exit_code: r.exit_code ?? null, stdout: stdout.toString('utf8'), stderr: stderr.toString('utf8'), duration_ms: r.duration_ms ?? null },
        () => {
          process.stdout.write(stdout);
          process.stderr.write(stderr);
          process.exitCode = r.exit_code ?? 1;
        },
      );
    });
}
