/** `browserdeck browsers get <id|name>`: one session. */
import type { Command } from 'commander';
import { contextOf } from '../../command-context.js';
import { showBrowser } from './show-browser.js';

export function registerBrowsersGet(browsers: Command): void {
  browsers
    .command('get')
    .description('show one browser session')
    .argument('<id>', 'session id or name')
    .option('--include-deleted', 'also find an ended session')
    .action(async (id: string, f: { includeDeleted?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const b = await ctx.client().browsers.retrieve(id, f.includeDeleted ? { include_deleted: true } : undefined);
      ctx.out.result(b, () => showBrowser(b));
    });
}
