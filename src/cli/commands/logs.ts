/**
 * `browserdeck logs <app> [--version V] [--since 5m]`: the log of the deployment behind an app
 * version (its build and load output), as `kernel logs` shows it. --json: one JSON object per line.
 */
import type { Command } from 'commander';
import { contextOf } from '../command-context.js';
import { CliError } from '../cli-error.js';
import { collect } from '../paginate.js';

export function registerLogs(program: Command): void {
  program
    .command('logs')
    .description("an app's deployment log")
    .argument('<app>', 'app name')
    .option('--version <version>', 'app version', 'latest')
    .option('--since <when>', 'only events since this time (RFC 3339) or this long ago (e.g. 5m)')
    .option('--with-timestamps', 'prefix each line with its time')
    .action(async (app: string, f: { version: string; since?: string; withTimestamps?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = ctx.client();
      const apps = await collect(client.apps.list({ app_name: app, version: f.version }));
      if (apps.length === 0) throw new CliError(`no app '${app}' version '${f.version}' (browserdeck deploy <dir> makes one)`);
      for await (const e of await client.deployments.follow(apps[0].deployment, f.since ? { since: f.since } : undefined)) {
        if (e.event !== 'log') continue;
        ctx.out.event(e, () => process.stdout.write(f.withTimestamps ? `${e.timestamp} ${e.message}\n` : `${e.message}\n`));
      }
    });
}
