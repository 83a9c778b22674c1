/** `browserdeck browsers list`: the caller's sessions (running by default), as a table or JSON array. */
import type { Command } from 'commander';
import { contextOf } from '../../command-context.js';
import { printTable } from '../../output.js';
import { collect } from '../../paginate.js';

export function registerBrowsersList(browsers: Command): void {
  browsers
    .command('list')
    .description('list browser sessions')
    .option('--status <status>', 'active, deleted or all', 'active')
    .option('--query <text>', 'match id, name or profile')
    .action(async (f: { status: 'active' | 'deleted' | 'all'; query?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const items = await collect(ctx.client().browsers.list({ status: f.status, query: f.query }));
      ctx.out.result(items, () =>
        printTable(
          ['SESSION ID', 'NAME', 'HEADLESS', 'CREATED', 'PROFILE'],
          items.map((b) => [b.session_id, b.name, b.headless, b.created_at, b.profile?.name]),
        ),
      );
    });
}
