/**
 * The one mock of the suite: `electron` (its binary cannot run under Node). Registered as a
 * vitest setup file, so every test that imports a main-process module gets this fake; the
 * fake ipcMain records handlers so tests can invoke them like the renderer would.
 */
import { vi } from 'vitest';

vi.mock('electron', () => {
  const handlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const listeners = new Map<string, Set<(event: unknown, ...args: unknown[]) => void>>();
  const ipcMain = {
    handlers,
    listeners,
    handle(channel: string, fn: (event: unknown, ...args: unknown[]) => unknown) {
      if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      handlers.set(channel, fn);
    },
    removeHandler(channel: string) {
      handlers.delete(channel);
    },
    on(channel: string, fn: (event: unknown, ...args: unknown[]) => void) {
      let set = listeners.get(channel);
      if (!set) listeners.set(channel, (set = new Set()));
      set.add(fn);
      return ipcMain;
    },
    removeListener(channel: string, fn: (event: unknown, ...args: unknown[]) => void) {
      listeners.get(channel)?.delete(fn);
      return ipcMain;
    },
  };
  const unavailable = () => {
    throw new Error('not available in main-process unit tests');
  };
  return {
    ipcMain,
    app: { getPath: unavailable, getVersion: () => '0.0.0-test', whenReady: () => new Promise(() => {}), on: () => {}, enableSandbox: () => {} },
    BrowserWindow: { getAllWindows: () => [], getFocusedWindow: () => null },
    safeStorage: {
      isAsyncEncryptionAvailable: unavailable,
      encryptStringAsync: unavailable,
      decryptStringAsync: unavailable,
      getSelectedStorageBackend: () => 'basic_text',
    },
    dialog: { showSaveDialog: unavailable, showErrorBox: () => {} },
    shell: { openExternal: unavailable },
    session: { defaultSession: {} },
  };
});
