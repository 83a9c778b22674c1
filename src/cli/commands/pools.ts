/**
 * `browserdeck pools list|get|create|delete`: browser pools, sets of idle browsers kept ready for
 * acquisition. `create <name> --size N` takes the main browser settings of `browsers create`.
 */
import type { Command } from 'commander';
import type { BrowserPool, BrowserPoolCreateParams } from '@onkernel/sdk/resources/browser-pools';
import { contextOf, intOption } from '../command-context.js';
import { printFields, printTable } from '../output.js';
import { collect } from '../paginate.js';
import { usageError } from '../cli-error.js';

function showPool(p: BrowserPool): void {
  printFields([
    ['id', p.id],
    ['name', p.name],
    ['size', p.browser_pool_config.size],
    ['available', p.available_count],
    ['acquired', p.acquired_count],
    ['headless', p.browser_pool_config.headless],
    ['timeout_seconds', p.browser_pool_config.timeout_seconds],
    ['created_at', p.created_at],
  ]);
}

interface CreateFlags {
  size?: number;
  headless?: boolean;
  stealth?: boolean;
  timeout?: number;
  profileName?: string;
  fillRate?: number;
}

export function registerPools(program: Command): void {
  const pools = program.command('pools').description('browser pools: list, get, create, delete');

  pools
    .command('list')
    .description('list pools')
    .action(async (_f: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const items = await collect(ctx.client().browserPools.list());
      ctx.out.result(items, () =>
        printTable(
          ['ID', 'NAME', 'SIZE', 'AVAILABLE', 'ACQUIRED'],
          items.map((p) => [p.id, p.name, p.browser_pool_config.size, p.available_count, p.acquired_count]),
        ),
      );
    });

  pools
    .command('get')
    .description('show one pool')
    .argument('<name>', 'pool name or id')
    .action(async (name: string, _f: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const p = await ctx.client().browserPools.retrieve(name);
      ctx.out.result(p, () => showPool(p));
    });

  pools
    .command('create')
    .description('create a pool')
    .argument('<name>', 'pool name')
    .option('--size <n>', 'browsers kept ready', intOption)
    .option('--headless', 'headless browsers')
    .option('--stealth', 'stealth mode')
    .option('--timeout <seconds>', 'idle timeout of an acquired browser', intOption)
    .option('--profile-name <name>', 'browsers start from this profile')
    .option('--fill-rate <per-minute>', 'how fast empty places are refilled', intOption)
    .action(async (name: string, f: CreateFlags, cmd: Command) => {
      const ctx = contextOf(cmd);
      if (f.size === undefined) throw usageError('pools create needs --size <n>');
      const body: BrowserPoolCreateParams = { name, size: f.size };
      if (f.headless) body.headless = true;
      if (f.stealth) body.stealth = true;
      if (f.timeout !== undefined) body.timeout_seconds = f.timeout;
      if (f.profileName) body.profile = { name: f.profileName };
      if (f.fillRate !== undefined) body.fill_rate_per_minute = f.fillRate;
      const p = await ctx.client().browserPools.create(body);
      ctx.out.result(p, () => showPool(p));
    });

  pools
    .command('delete')
    .description('delete a pool and its idle browsers')
    .argument('<name>', 'pool name or id')
    .option('--force', 'also end its acquired browsers')
    .action(async (name: string, f: { force?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      await ctx.client().browserPools.delete(name, f.force ? { force: true } : undefined);
      ctx.out.result({ deleted: name }, () => process.stdout.write(`deleted ${name}\n`));
    });
}
