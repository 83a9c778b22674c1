/**
 * `npx tsx scripts/docs/tray-menu-shot.ts`: renders the desktop tray menu (src/main/tray-menu.ts,
 * with its icon from src/main/tray-icon.ts) as the list Electron would show, for a running engine
 * with two sessions and for one that failed to start, into
 * docs/operate/screenshots/desktop-tray-menu.png. Electron cannot run where this was built, so
 * the picture is the menu's model drawn in Chromium, not the OS's own menu.
 */
import path from 'node:path';
import { chromium } from 'playwright-core';
import { trayModel } from '../../src/main/tray-menu.js';
import { trayIconPng } from '../../src/main/tray-icon.js';
import type { EngineStatusInfo } from '../../src/shared/ipc/contract.js';

const OUT = path.resolve(import.meta.dirname, '../../docs/operate/screenshots/desktop-tray-menu.png');
const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function menu(status: EngineStatusInfo): string {
  const m = trayModel(status);
  const icon = `data:image/png;base64,${trayIconPng(m.icon, 32).toString('base64')}`;
  const items = m.items.map((i) => (i.type === 'separator' ? '<li class="sep"></li>' : `<li class="${i.enabled ? '' : 'off'}">${esc(i.label)}</li>`)).join('');
  return `<figure><div class="bar"><img src="${icon}" width="16" height="16" alt=""><span>${esc(m.tooltip)}</span></div><ul>${items}</ul></figure>`;
}

const html = `<!doctype html><meta charset="utf-8"><style>
  body { margin: 0; padding: 16px; background: #dfe3e8; font: 13px system-ui, sans-serif; display: flex; gap: 24px; align-items: flex-start; }
  figure { margin: 0; width: 340px; }
  .bar { display: flex; gap: 8px; align-items: center; background: #1b2330; color: #c9d1dc; padding: 6px 10px; border-radius: 6px 6px 0 0; font-size: 12px; }
  ul { list-style: none; margin: 0; padding: 4px 0; background: #fff; border: 1px solid #c5ccd5; border-radius: 0 0 6px 6px; min-width: 0; box-shadow: 0 4px 12px rgba(0,0,0,.15); }
  li { padding: 6px 16px; }
  li.off { color: #8a94a3; }
  li.sep { padding: 0; margin: 4px 0; border-top: 1px solid #e3e7ec; }
</style>${menu({ status: 'running', sessions: 2, url: 'http://127.0.0.1:8420' })}${menu({
  status: 'error',
  sessions: 0,
  error: 'the data dir /home/ann/.config/Browserdeck/engine is in use by another engine: pid 4242 (cli.ts) started 2026-12-02T07:00:00.000Z',
})}`;

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 760, height: 200 }, deviceScaleFactor: 1 });
await page.setContent(html);
await page.screenshot({ path: OUT, fullPage: true });
await browser.close();
process.stdout.write(`${OUT}\n`);
