/** `browserdeck browsers …`: one file per subcommand under browsers/. */
import type { Command } from 'commander';
import { registerBrowsersCreate } from './browsers/create.js';
import { registerBrowsersList } from './browsers/list.js';
import { registerBrowsersGet } from './browsers/get.js';
import { registerBrowsersDelete } from './browsers/delete.js';
import { registerBrowsersView } from './browsers/view.js';
import { registerBrowsersExec } from './browsers/exec.js';
import { registerBrowsersFs } from './browsers/fs.js';
import { registerBrowsersLogs } from './browsers/logs.js';

export function registerBrowsers(program: Command): void {
  const browsers = program.command('browsers').description('browser sessions: create, list, get, delete, view, exec, fs, logs');
  registerBrowsersCreate(browsers);
  registerBrowsersList(browsers);
  registerBrowsersGet(browsers);
  registerBrowsersDelete(browsers);
  registerBrowsersView(browsers);
  registerBrowsersExec(browsers);
  registerBrowsersFs(browsers);
  registerBrowsersLogs(browsers);
}
