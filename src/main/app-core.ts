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
import type { EventChannel, EventPayloads } from '../shared/ipc/contract.js';

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
}

export interface AppCore {
  host: EngineHost;
  connections: Connections;
  controlPlane: ControlPlane;
  handlers: InvokeHandlers;
  /** Reads saved connections; call before IPC is registered. */
  load(): Promise<void>;
  /** Starts the local engine, announces it and begins health polling. */
  startEngine(): Promise<void>;
  /** Stops polling and the engine (ending every session and browser). Idempotent. */
  stop(): Promise<void>;
}

export function createAppCore(d: AppCoreDeps): AppCore {
  const host = new EngineHost({ dataDir: join(d.userData, 'engine'), uiDir: d.rendererDir, log: d.log, ...d.engine });
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
  const handlers = createHandlers({ version: d.version, platform: d.platform, vault, connections, controlPlane, openExternal: d.openExternal, openInspector });
  return {
    host,
    connections,
    controlPlane,
    handlers,
    load: () => connections.load(),
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
      await host.stop();
    },
  };
}
