/**
 * Filesystem watches of the engine (`/fs/watch`), by id. Watching never happens in the engine
 * process: each session's watches live in one watcher process of that session
 * (session-watcher.ts; jailed as the session's uid, fs-watcher-launch.ts), which walks without
 * following links and within the session's budget of watched directories (`--fs-watch-max-dirs`).
 * Every watch ends with its session and at engine stop.
 */
import type { SessionHandle } from '../session/session-handle.js';
import { FsWatch, SessionWatcher, type WatcherOptions } from './session-watcher.js';

export { FsWatch, type WatchEvent, type WatchEventType } from './session-watcher.js';

export class FsWatches {
  private watches = new Map<string, FsWatch>();
  private watchers = new Map<string, SessionWatcher>();

  constructor(private readonly opts: WatcherOptions) {}

  /** Watches `dir` (a client path, already checked to be a directory) of the session. */
  async start(handle: SessionHandle, dir: string, recursive: boolean): Promise<FsWatch> {
    let watcher = this.watchers.get(handle.id);
    if (!watcher) {
      const created: SessionWatcher = new SessionWatcher(handle, this.opts, () => {
        if (this.watchers.get(handle.id) === created) this.watchers.delete(handle.id);
      });
      this.watchers.set(handle.id, (watcher = created));
    }
    const sw = watcher;
    const w = new FsWatch(handle.id, dir, recursive, (stopped) => {
      this.watches.delete(stopped.id);
      sw.remove(stopped);
    });
    await sw.add(w);
    this.watches.set(w.id, w);
    return w;
  }

  get(sessionId: string, id: string): FsWatch | undefined {
    const w = this.watches.get(id);
    return w && w.sessionId === sessionId && !w.ended ? w : undefined;
  }

  stop(id: string): void {
    this.watches.get(id)?.stop();
  }

  async stopSession(sessionId: string): Promise<void> {
    await this.watchers.get(sessionId)?.close();
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.watchers.values()].map((w) => w.close()));
  }
}
