/** `browserdeck browsers create [flags]`: POST /browsers; prints the session (its CDP and live-view URLs). */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { BrowserCreateParams } from '@onkernel/sdk/resources/browsers/browsers';
import { contextOf, intOption } from '../../command-context.js';
import { showBrowser } from './show-browser.js';

interface CreateFlags {
  headless?: boolean;
  stealth?: boolean;
  timeout?: number;
  name?: string;
  profileName?: string;
  profileId?: string;
  saveProfileChanges?: boolean;
  proxyId?: string;
  startUrl?: string;
  viewport?: { width: number; height: number };
  kiosk?: boolean;
}

function viewport(value: string): { width: number; height: number } {
  const m = /^(\d+)x(\d+)$/.exec(value);
  if (!m) throw new InvalidArgumentError(`takes WIDTHxHEIGHT, e.g. 1280x800, not '${value}'`);
  return { width: Number(m[1]), height: Number(m[2]) };
}

export function registerBrowsersCreate(browsers: Command): void {
  browsers
    .command('create')
    .description('start a browser session')
    .option('--headless', 'no display (faster; live view still works)')
    .option('--stealth', 'stealth mode')
    .option('--timeout <seconds>', 'end the session after this many idle seconds', intOption)
    .option('--name <name>', 'a name unique among running sessions')
    .option('--profile-name <name>', 'start from this profile')
    .option('--profile-id <id>', 'start from this profile (by id)')
    .option('--save-profile-changes', 'save the session back into its profile when it ends')
    .option('--proxy-id <id>', 'route through this proxy')
    .option('--start-url <url>', 'open this page first')
    .option('--viewport <WxH>', 'window size, e.g. 1280x800', viewport)
    .option('--kiosk', 'kiosk mode')
    .action(async (f: CreateFlags, cmd: Command) => {
      const ctx = contextOf(cmd);
      const body: BrowserCreateParams = {};
      if (f.headless) body.headless = true;
      if (f.stealth) body.stealth = true;
      if (f.timeout !== undefined) body.timeout_seconds = f.timeout;
      if (f.name) body.name = f.name;
      if (f.profileName || f.profileId) body.profile = { name: f.profileName, id: f.profileId, save_changes: f.saveProfileChanges };
      if (f.proxyId) body.proxy_id = f.proxyId;
      if (f.startUrl) body.start_url = f.startUrl;
      if (f.viewport) body.viewport = f.viewport;
      if (f.kiosk) body.kiosk_mode = true;
      const b = await ctx.client().browsers.create(body);
      ctx.out.result(b, () => showBrowser(b));
    });
}
