/**
 * `browserdeck deploy <dir>`: zips the app directory, creates a deployment and follows its events
 * to the end (logs for people; exits 1 when it failed). --json prints one document at the end:
 * `{deployment, apps}` (the app versions it made).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { toFile } from '@onkernel/sdk';
import { contextOf } from '../command-context.js';
import { CliError, usageError } from '../cli-error.js';
import { zipDir } from '../zip-dir.js';
import { parseEnvPairs } from '../env-pairs.js';

const ENTRYPOINTS = ['index.ts', 'index.mts', 'index.js', 'index.mjs', 'main.ts', 'main.js', 'src/index.ts', 'src/index.js'];

interface DeployFlags {
  entrypoint?: string;
  version?: string;
  force?: boolean;
  env?: string[];
  withNodeModules?: boolean;
}

export function registerDeploy(program: Command): void {
  program
    .command('deploy')
    .description('deploy an app directory and follow the deployment to its end')
    .argument('<dir>', 'the app directory')
    .option('--entrypoint <file>', `the file that registers the app (default: the first of ${ENTRYPOINTS.join(', ')})`)
    .option('--version <version>', 'app version label (default: latest)')
    .option('--force', 'replace an existing app version')
    .option('--env <KEY=VALUE...>', 'environment variables of the app')
    .option('--with-node-modules', 'also upload node_modules')
    .action(async (dir: string, f: DeployFlags, cmd: Command) => {
      const ctx = contextOf(cmd);
      if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw usageError(`'${dir}' is not a directory`);
      const entry = f.entrypoint ?? ENTRYPOINTS.find((e) => fs.existsSync(path.join(dir, e)));
      if (!entry) throw usageError(`no entrypoint in '${dir}': pass --entrypoint <file>`);
      const client = ctx.client();
      const { zip, files } = await zipDir(dir, { withNodeModules: f.withNodeModules });
      ctx.out.note(`uploading ${files} files (${zip.length} bytes), entrypoint ${entry}`);
      const created = await client.deployments.create({
        file: await toFile(zip, 'app.zip', { type: 'application/zip' }),
        entrypoint_rel_path: entry,
        version: f.version,
        force: f.force,
        env_vars: f.env?.length ? parseEnvPairs(f.env) : undefined,
      });
      ctx.out.note(`deployment ${created.id}`);
      const apps: unknown[] = [];
      for await (const e of await client.deployments.follow(created.id)) {
        if (e.event === 'log') ctx.out.note(e.message);
        else if (e.event === 'deployment_state') ctx.out.note(`state: ${e.deployment.status}`);
        else if (e.event === 'app_version_summary') {
          apps.push(e);
          ctx.out.note(`app ${e.app_name} ${e.version}: actions ${e.actions.map((a) => a.name).join(', ')}`);
        } else if (e.event === 'error') ctx.out.note(`error: ${e.error.message}`);
      }
      const deployment = await client.deployments.retrieve(created.id);
      ctx.out.result({ deployment, apps }, () => process.stdout.write(`deployment ${deployment.id}: ${deployment.status}\n`));
      if (deployment.status !== 'running')
        throw new CliError(`deployment ${deployment.id} ${deployment.status}: ${deployment.status_reason ?? 'see the log above'}`);
    });
}
