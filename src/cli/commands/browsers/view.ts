/**
 * `browserdeck browsers view <id> [--open]`: the session's live-view URL (a page that shows the
 * browser and takes input), printed, or opened in the desktop's browser with --open. The URL
 * carries a session token: it is the session's own, meant to be handed to a person.
 */
import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { contextOf } from '../../command-context.js';
import { CliError } from '../../cli-error.js';

/** The desktop's "open this URL" program. */
function opener(): { cmd: string; args: string[] } {
  if (process.platform === 'darwin') return { cmd: 'open', args: [] };
  if (process.platform === 'win32') return { cmd: 'cmd', args: ['/c', 'start', '""'] };
  return { cmd: 'xdg-open', args: [] };
}

export function registerBrowsersView(browsers: Command): void {
  browsers
    .command('view')
    .description("print (or --open) a session's live-view URL")
    .argument('<id>', 'session id or name')
    .option('--open', "open it in this desktop's browser")
    .action(async (id: string, f: { open?: boolean }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const b = await ctx.client().browsers.retrieve(id);
      const url = b.browser_live_view_url;
      if (!url) throw new CliError(`session ${b.session_id} has no live view`);
      ctx.out.result({ session_id: b.session_id, live_view_url: url }, () => process.stdout.write(url + '\n'));
      if (f.open) {
        const o = opener();
        const child = spawn(o.cmd, [...o.args, url], { stdio: 'ignore', detached: true });
        child.on('error', () => ctx.out.note(`could not run ${o.cmd}: open the URL above yourself`));
        child.unref();
      }
    });
}
