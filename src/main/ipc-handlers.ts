/**
 * What each IPC channel does, in terms of the plain modules (no Electron here: the few
 * Electron calls arrive as injected functions), so the whole table is testable under Node.
 */
import type { InvokeHandlers } from './ipc-router.js';
import type { Connections } from './connections.js';
import type { ControlPlane } from './control-plane.js';
import type { CredentialVault } from './credential-vault.js';
import { isHttpUrl } from './security.js';
import type { DesktopSettingsInput, SettingsView } from '../shared/ipc/contract.js';

export interface HandlerDeps {
  version: string;
  platform: string;
  vault: CredentialVault;
  connections: Connections;
  controlPlane: ControlPlane;
  openExternal: (url: string) => Promise<void>;
  /** Opens DevTools or the trace viewer in a native window (inspector-window.ts). */
  openInspector: (args: { url: string; title: string }) => Promise<null>;
  /** The local engine's settings (settings-store.ts) and its restart, as the Settings page sees them. */
  settings: {
    view: () => SettingsView;
    save: (input: DesktopSettingsInput) => Promise<SettingsView>;
    restart: () => Promise<SettingsView>;
  };
}

export function createHandlers(d: HandlerDeps): InvokeHandlers {
  return {
    'app:info': async () => ({ version: d.version, platform: d.platform, vault: await d.vault.status() }),
    'connections:list': () => d.connections.list(),
    'connections:add': (input) => d.connections.add(input),
    'connections:remove': ({ id }) => d.connections.remove(id),
    'connections:activate': ({ id }) => d.connections.activate(id),
    'connections:check': ({ id }) => d.connections.check(id),
    'api:request': (req) => d.controlPlane.request(req),
    'api:download': (req) => d.controlPlane.download(req),
    'api:binary': (req) => d.controlPlane.binary(req),
    'shell:open-external': async ({ url }) => {
      if (!isHttpUrl(url)) throw new Error('only http(s) links open in the browser');
      await d.openExternal(url);
      return null;
    },
    'inspect:open-window': (args) => d.openInspector(args),
    'settings:get': () => d.settings.view(),
    'settings:save': (input) => d.settings.save(input),
    'engine:restart': () => d.settings.restart(),
  };
}
