/**
 * The desktop app's main-process wiring, free of Electron: the embedded engine host, the
 * credential vault, connections, the control plane and the IPC handler table, built from the
 * few platform pieces Electron provides (cipher, save dialog, external links, broadcasting to
 * windows), which arrive injected. `index.ts` passes Electron's; the desktop end-to-end harness
 * passes stand-ins and drives the real renderer bundle through this same core.
 */
import { join } from 'node:path';
import { EngineHost, type EngineHostOptions } from './engine-host.js';
import { CredentialVault, type Cipher } from './credential-vault.js';
import { Connections } from './connections.js';
import { ControlPlane } from './control-plane.js';
import { createInspectorOpener } from './inspector-window.js';
import { createHandlers } from './ipc-handlers.js';
import type { InvokeHandlers } from './ipc-router.js';
import { checkHealth, verifyKey } from './server-probe.js';
import { SettingsStore } from './settings-store.js';
import { hostSettings, needsRestart } from './desktop-settings.js';
import { EngineWatch } from './engine-watch.js';
import type { DesktopNotice } from './desktop-notifications.js';
import type { DesktopSettings, EngineStatusInfo, EventChannel, EventPayloads, SettingsView } from '../shared/ipc/contract.js';

export interface AppCoreDeps {
  /** Electron's `userData`: engine data, connections.json and the vault file live here. */
  userData: string;
  /** The built renderer, also served by the local engine as the web console. */
  rendererDir?: string;
  cipher: Cipher;
  version: string;
  platform: string;
  engine?: Pick<EngineHostOptions, 'secretKeyProvider' | 'assetsRoot' | 'childNode' | 'chromiumPath'>;
  chooseSavePath: (suggestedName: string) => Promise<string | null>;
  openExternal: (url: string) => Promise<void>;
  /** A native window showing an inspection tool page (index.ts: BrowserWindow). */
  openInspectorWindow: (url: string, title: string) => void;
  broadcast: <E extends EventChannel>(event: E, payload: EventPayloads[E]) => void;
  log?: (line: string) => void;
  healthPollMs?: number;
  /** A system notification (index.ts: Electron's Notification); none when absent. */
  notify?: (n: DesktopNotice) => void;
  /** The local engine's state changed (index.ts: the tray). */
  onEngineStatus?: (s: EngineStatusInfo) => void;
}

export interface AppCore {
  host: EngineHost;
  settings: SettingsStore;
  watch: EngineWatch;
  connections: Connections;
  controlPlane: ControlPlane;
  handlers: InvokeHandlers;
  /** Reads saved connections and settings; call before IPC is registered. */
  load(): Promise<void>;
  /** Starts the local engine, announces it and begins health polling. */
  startEngine(): Promise<void>;
  /** The tray's Start / Stop engine: the app stays open, the local connection shows down meanwhile. */
  startLocal(): Promise<void>;
  stopLocal(): Promise<void>;
  /** Stops polling and the engine (ending every session and browser). Idempotent. */
  stop(): Promise<void>;
}

export function createAppCore(d: AppCoreDeps): AppCore {
  const defaultDataDir = join(d.userData, 'engine');
  // What the running engine started with: a saved change shows "restart to apply" until then.
  let applied: DesktopSettings | undefined;
  const settings = new SettingsStore({
    file: join(d.userData, 'desktop-settings.json'),
    defaultDataDir,
    running: () => {
      const cur = host.current();
      const st = host.status();
      return cur && st.dataDir ? { port: Number(new URL(cur.url).port), dataDir: st.dataDir } : null;
    },
  });
  const host: EngineHost = new EngineHost({
    dataDir: defaultDataDir,
    uiDir: d.rendererDir,
    log: d.log,
    ...d.engine,
    settings: () => hostSettings((applied = settings.get())),
    onState: () => {
      watch.engineChanged();
      // The local connection's URL and health follow the engine.
      d.broadcast('connections:changed', connections.list());
      void connections.check('local').catch(() => {});
    },
  });
  const watch: EngineWatch = new EngineWatch({
    host,
    notify: (n) => d.notify?.(n),
    onStatus: (s) => {
      d.broadcast('engine:status', s);
      d.onEngineStatus?.(s);
    },
    log: d.log,
  });
  const view = (): SettingsView => {
    const engine = watch.status();
    return {
      settings: settings.get(),
      defaultDataDir,
      restartNeeded: engine.status !== 'running' || !applied ? false : needsRestart(applied, settings.get()),
      engine,
    };
  };
  const vault = new CredentialVault(d.cipher, join(d.userData, 'credentials.json'));
  const connections = new Connections({
    file: join(d.userData, 'connections.json'),
    vault,
    local: () => host.current(),
    checkHealth,
    verifyKey,
    onChange: (list) => d.broadcast('connections:changed', list),
  });
  const controlPlane = new ControlPlane({ target: () => connections.activeTarget(), chooseSavePath: d.chooseSavePath });
  const openInspector = createInspectorOpener({ engineUrl: async () => (await connections.activeTarget()).url, openWindow: d.openInspectorWindow });
  const handlers = createHandlers({
    version: d.version,
    platform: d.platform,
    vault,
    connections,
    controlPlane,
    openExternal: d.openExternal,
    openInspector,
    settings: {
      view,
      save: async (input) => {
        await settings.save(input);
        return view();
      },
      restart: async () => {
        // A failed start is in the view (engine.status 'error' and its message), where the page shows it.
        await host.restart().catch(() => {});
        return view();
      },
    },
  });
  return {
    host,
    settings,
    watch,
    connections,
    controlPlane,
    handlers,
    async load() {
      await connections.load();
      await settings.load();
    },
    async startLocal() {
      await host.start();
    },
    async stopLocal() {
      await host.stopEngine();
    },
    async startEngine() {
      try {
        await host.start();
        d.broadcast('connections:changed', connections.list());
      } finally {
        // Remote connections are worth polling even when the local engine failed to start.
        connections.startPolling(d.healthPollMs ?? 5_000);
      }
    },
    async stop() {
      connections.stopPolling();
      watch.stop();
      await host.stop();
    },
  };
}
