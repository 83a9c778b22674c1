/** `browserdeck browsers delete <id…>`: ends sessions; stops at the first the engine refuses. */
import type { Command } from 'commander';
import { contextOf } from '../../command-context.js';

export function registerBrowsersDelete(browsers: Command): void {
  browsers
    .command('delete')
    .description('end browser sessions')
    .argument('<ids...>', 'session ids or names')
    .action(async (ids: string[], _f: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const deleted: string[] = [];
      for (const id of ids) {
        await ctx.client().browsers.deleteByID(id);
        deleted.push(id);
        if (!ctx.out.json) process.stdout.write(`deleted ${id}\n`);
      }
      ctx.out.result({ deleted }, () => {});
    });
}
