/**
 * Electron main process: the glue. It builds the app core (app-core.ts: engine host, vault,
 * connections, control plane, IPC handlers, settings, engine watch) from Electron's pieces,
 * registers the validated IPC surface, locks down every window, opens the operator window, shows
 * the tray icon (tray-menu.ts) and notifications (desktop-notifications.ts), and stops the engine
 * (and so every browser) before the app exits. One app per user: a second launch only focuses
 * the first's window (the engine's data dir lock refuses a second engine either way).
 * Everything but this file runs under Node in the tests.
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, Menu, nativeImage, Notification, safeStorage, session, shell, Tray } from 'electron';
import { unpackedPath } from '../engine/runtime/assets.js';
import { electronCipher } from './electron-cipher.js';
import { keychainSecretKeyProvider } from './secret-key-provider.js';
import { createAppCore } from './app-core.js';
import { registerIpc } from './ipc-main.js';
import { appFrameCheck } from './ipc-router.js';
import { guardContents, guardSession, secureWebPreferences } from './security.js';
import type { EngineStatusInfo, EventChannel, EventPayloads } from '../shared/ipc/contract.js';
import { trayModel, type TrayAction } from './tray-menu.js';
import { trayIconPng } from './tray-icon.js';
import type { DesktopNotice } from './desktop-notifications.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const rendererDir = join(here, '../renderer');
// The engine's child scripts, copied beside the bundle at build and unpacked from the asar.
const engineAssetsDir = unpackedPath(join(here, 'engine-assets'));
// Children (code runner, sandbox helpers, app runner) run on Electron's own binary as plain Node.
const childNode = { path: process.execPath, env: { ELECTRON_RUN_AS_NODE: '1' } };
// electron-vite sets ELECTRON_RENDERER_URL during `electron-vite dev`; otherwise load the build.
const devUrl = process.env.ELECTRON_RENDERER_URL;
const appUrl = devUrl ?? pathToFileURL(join(rendererDir, 'index.html')).toString();
const trusted = appFrameCheck(appUrl);
const isAppUrl = (url: string): boolean => trusted({ url, parent: null });

app.enableSandbox();
// A second launch hands over to the first (its 'second-instance' below) and exits before starting anything.
const firstInstance = app.requestSingleInstanceLock();
if (!firstInstance) app.quit();

function broadcast<E extends EventChannel>(event: E, payload: EventPayloads[E]): void {
  for (const w of BrowserWindow.getAllWindows()) w.webContents.send(event, payload);
}

/** The operator window, brought to the front; made again when it was closed (the app lives on in the tray). */
function showWindow(route?: string): void {
  const win = BrowserWindow.getAllWindows().find((w) => isAppUrl(w.webContents.getURL())) ?? createWindow();
  if (route) void win.webContents.executeJavaScript(`location.hash = ${JSON.stringify(route)}`);
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    minWidth: 900,
    minHeight: 560,
    title: 'Browserdeck',
    webPreferences: { ...secureWebPreferences, preload: join(here, '../preload/index.cjs') },
  });
  void win.loadURL(appUrl);
  return win;
}

/**
 * DevTools on a session's tab or the trace viewer (inspector-window.ts checked the URL): a
 * sandboxed window without the preload, in its own partition so the console's storage is not
 * shared with pages the engine serves from a tenant's browser.
 */
function openInspectorWindow(url: string, title: string): void {
  const win = new BrowserWindow({ width: 1280, height: 860, title, webPreferences: { ...secureWebPreferences, partition: 'inspector' } });
  win.on('page-title-updated', (e) => e.preventDefault());
  void win.loadURL(url);
}

let tray: Tray | undefined;

function updateTray(status: EngineStatusInfo, act: (a: TrayAction) => void): void {
  if (!tray) return;
  const model = trayModel(status);
  tray.setImage(nativeImage.createFromBuffer(trayIconPng(model.icon, 32), { scaleFactor: 2 }));
  tray.setToolTip(model.tooltip);
  tray.setContextMenu(
    Menu.buildFromTemplate(
      model.items.map((i) =>
        i.type === 'separator' ? { type: 'separator' as const } : { label: i.label, enabled: i.enabled, click: i.action ? () => act(i.action!) : undefined },
      ),
    ),
  );
}

function showNotice(n: DesktopNotice): void {
  if (!Notification.isSupported()) return;
  const note = new Notification({ title: n.title, body: n.body });
  note.on('click', () => showWindow(n.route));
  note.show();
}

async function main(): Promise<void> {
  if (!firstInstance) return;
  app.on('second-instance', () => showWindow());
  await app.whenReady();
  const userData = app.getPath('userData');
  // The engine's secret key lives only as safeStorage ciphertext in userData (OS keychain).
  const secretKeyProvider = keychainSecretKeyProvider({
    cipher: electronCipher(safeStorage),
    file: join(userData, 'engine-secret-key.json'),
    warn: (m) => console.warn(m),
  });
  const openExternal = (url: string): Promise<void> => shell.openExternal(url);
  const core = createAppCore({
    userData,
    rendererDir,
    cipher: electronCipher(safeStorage),
    version: app.getVersion(),
    platform: process.platform,
    engine: { secretKeyProvider, assetsRoot: engineAssetsDir, childNode },
    log: (line) => console.log(line),
    broadcast,
    openExternal,
    openInspectorWindow,
    notify: showNotice,
    onEngineStatus: (st) => updateTray(st, onTray),
    chooseSavePath: async (name) => {
      const win = BrowserWindow.getFocusedWindow();
      const r = win
        ? await dialog.showSaveDialog(win, { defaultPath: join(app.getPath('downloads'), name) })
        : await dialog.showSaveDialog({ defaultPath: name });
      return r.canceled || !r.filePath ? null : r.filePath;
    },
  });
  const onTray = (a: TrayAction): void => {
    if (a === 'open') showWindow();
    else if (a === 'quit') app.quit();
    else if (a === 'start-engine') void core.startLocal().catch((err) => dialog.showErrorBox('Browserdeck: the local engine did not start', String(err)));
    else void core.stopLocal();
  };
  await core.load();
  try {
    tray = new Tray(nativeImage.createFromBuffer(trayIconPng('stopped', 32), { scaleFactor: 2 }));
    tray.on('click', () => showWindow());
    updateTray(core.watch.status(), onTray);
  } catch (err) {
    // Some Linux desktops have no status area: the app then quits with its last window, as before.
    console.warn(`no tray icon: ${err instanceof Error ? err.message : String(err)}`);
    tray = undefined;
  }
  registerIpc(core.handlers, core.controlPlane, trusted);
  guardSession(session.defaultSession, { isAppUrl });
  // Inspector windows (openInspectorWindow): no permission for anything they show.
  guardSession(session.fromPartition('inspector'), { isAppUrl: () => false });
  app.on('web-contents-created', (_e, contents) => guardContents(contents, { isAppUrl, openExternal: (url) => void openExternal(url) }));

  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting) return;
    event.preventDefault();
    quitting = true;
    // No browser may outlive the app: stopping the engine ends every session first.
    void core.stop().finally(() => app.quit());
  });
  app.on('window-all-closed', () => {
    // Like Docker/Podman Desktop: with a tray icon the engine keeps serving; the tray reopens the window or quits.
    if (!tray && process.platform !== 'darwin') app.quit();
  });
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });

  createWindow();
  try {
    await core.startEngine();
  } catch (err) {
    dialog.showErrorBox('Browserdeck: the local engine did not start', err instanceof Error ? err.message : String(err));
  }
}

void main();
