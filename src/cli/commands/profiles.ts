/**
 * `browserdeck profiles list|get|delete|download`: saved browser profiles (cookies, storage) that
 * sessions start from. `download` writes the profile's archive (tar.zst, or --format tar).
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { contextOf } from '../command-context.js';
import { printFields, printTable } from '../output.js';
import { collect } from '../paginate.js';

export function registerProfiles(program: Command): void {
  const profiles = program.command('profiles').description('browser profiles: list, get, delete, download');

  profiles
    .command('list')
    .description('list profiles')
    .option('--query <text>', 'match name or id')
    .action(async (f: { query?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const items = await collect(ctx.client().profiles.list(f.query ? { query: f.query } : undefined));
      ctx.out.result(items, () =>
        printTable(
          ['ID', 'NAME', 'CREATED', 'LAST USED'],
          items.map((p) => [p.id, p.name, p.created_at, p.last_used_at]),
        ),
      );
    });

  profiles
    .command('get')
    .description('show one profile')
    .argument('<name>', 'profile name or id')
    .action(async (name: string, _f: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const p = await ctx.client().profiles.retrieve(name);
      ctx.out.result(p, () =>
        printFields([
          ['id', p.id],
          ['name', p.name],
          ['created_at', p.created_at],
          ['updated_at', p.updated_at],
          ['last_used_at', p.last_used_at],
        ]),
      );
    });

  profiles
    .command('delete')
    .description('delete a profile')
    .argument('<name>', 'profile name or id')
    .action(async (name: string, _f: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      await ctx.client().profiles.delete(name);
      ctx.out.result({ deleted: name }, () => process.stdout.write(`deleted ${name}\n`));
    });

  profiles
    .command('download')
    .description("write a profile's archive to a file")
    .argument('<name>', 'profile name or id')
    .option('-o, --output <file>', 'where to write it (default: <name>.<format>)')
    .option('--format <format>', 'tar.zst or tar', 'tar.zst')
    .action(async (name: string, f: { output?: string; format: 'tar.zst' | 'tar' }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const res = await ctx.client().profiles.download(name, { format: f.format });
      const file = f.output ?? `${name}.${f.format}`;
      await pipeline(Readable.fromWeb(res.body! as import('node:stream/web').ReadableStream), fs.createWriteStream(file));
      const bytes = fs.statSync(file).size;
      ctx.out.result({ profile: name, file, bytes }, () => process.stdout.write(`wrote ${file} (${bytes} bytes)\n`));
    });
}
