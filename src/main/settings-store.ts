/**
 * The desktop settings on disk (`desktop-settings.json` in userData) and the checks that need
 * the machine: a fixed port must be free (unless the running engine holds it), a data dir must
 * be a directory this user can write, not held by another engine. The rules on the values
 * themselves are desktop-settings.ts's. Saved settings apply at the engine's next start.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { runningEnginePid } from '../engine/store/engine-pid-file.js';
import type { DesktopSettings, DesktopSettingsInput } from '../shared/ipc/contract.js';
import { DEFAULT_SETTINGS, settingsFromFile, SettingsError, validateSettings } from './desktop-settings.js';
import { readJsonFile, writeJsonFile } from './json-file.js';

export interface SettingsStoreDeps {
  file: string;
  /** The data dir used when the setting is empty (userData/engine). */
  defaultDataDir: string;
  /** The running engine's port and data dir, which the checks accept as its own. */
  running: () => { port: number; dataDir: string } | null;
}

export class SettingsStore {
  private current: DesktopSettings = { ...DEFAULT_SETTINGS };

  constructor(private readonly deps: SettingsStoreDeps) {}

  async load(): Promise<DesktopSettings> {
    this.current = settingsFromFile(await readJsonFile<unknown>(this.deps.file));
    return this.current;
  }

  get(): DesktopSettings {
    return this.current;
  }

  /** Validates, checks against the machine, and persists; throws a SettingsError naming the field. */
  async save(input: DesktopSettingsInput): Promise<DesktopSettings> {
    const next = validateSettings(input);
    const running = this.deps.running();
    if (next.port > 0 && next.port !== running?.port) await assertPortFree(next.port);
    await assertUsableDataDir(next.dataDir || this.deps.defaultDataDir, running?.dataDir);
    await writeJsonFile(this.deps.file, next);
    this.current = next;
    return next;
  }
}

/** Refuses a port another program listens on (the engine binds 127.0.0.1). */
export function assertPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new SettingsError(
          'port',
          err.code === 'EADDRINUSE' ? `port ${port} is in use by another program on this computer` : `port ${port} cannot be used: ${err.message}`,
        ),
      ),
    );
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** The dir (or, when it does not exist yet, its nearest existing parent) must be a directory this user can write, and no other engine's. */
export async function assertUsableDataDir(dir: string, ownDir: string | undefined): Promise<void> {
  let existing = dir;
  for (;;) {
    const st = await fs.stat(existing).catch(() => null);
    if (st) {
      if (!st.isDirectory()) throw new SettingsError('dataDir', `${existing} is not a directory`);
      break;
    }
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  try {
    await fs.access(existing, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    throw new SettingsError('dataDir', `${existing} is not writable by this user`);
  }
  if (ownDir && path.resolve(ownDir) === path.resolve(dir)) return;
  const pid = runningEnginePid(dir);
  if (pid !== null) throw new SettingsError('dataDir', `${dir} is in use by another engine (pid ${pid}); stop it or choose another data dir`);
}
