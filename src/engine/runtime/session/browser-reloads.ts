/**
 * Restarts of a running session's browser on purpose, one after another: with more unpacked
 * extensions (POST /browsers/{id}/extensions) or around a copy of its closed user-data-dir
 * (saving a running browser into a profile, §8). Same path as a crash restart: same
 * user-data-dir, so cookies and storage carry over; CDP and live view clients reconnect.
 */
import type { BrowserSupervisor } from '../chromium/browser-supervisor.js';

export class BrowserReloads {
  /** Unpacked extensions every launch (first, crash restarts, reloads) loads. */
  extensionDirs: string[] = [];
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly supervisor: BrowserSupervisor,
    private readonly session: { readonly ended: boolean; ready(): Promise<unknown> },
  ) {}

  /**
   * Adds unpacked extensions and restarts Chromium with all of them. Resolves once the new
   * browser is ready. If it cannot start with them, the browser comes back without the new ones
   * and this rejects; if even that fails, the session ends.
   */
  loadExtensions(dirs: string[]): Promise<void> {
    return this.serially(async () => {
      const before = this.extensionDirs;
      this.extensionDirs = [...before, ...dirs.filter((d) => !before.includes(d))];
      try {
        await this.supervisor.restart();
      } catch (err) {
        this.extensionDirs = before;
        if (this.session.ended) throw err;
        await this.supervisor.restart().catch((again: Error) => this.supervisor.giveUp(`browser could not be restarted: ${again.message}`));
        throw err;
      }
    });
  }

  /**
   * Restarts Chromium and runs `fn` while it is closed (the jail's other processes keep running,
   * they never see the user-data-dir). Resolves once the new browser is ready and `fn`
   * succeeded; a browser that cannot come back ends the session.
   */
  restartWith(fn: () => Promise<void>): Promise<void> {
    return this.serially(async () => {
      try {
        await this.supervisor.restart(fn);
      } finally {
        if (!this.session.ended && !this.supervisor.current) {
          await this.supervisor.restart().catch((again: Error) => this.supervisor.giveUp(`browser could not be restarted: ${again.message}`));
        }
      }
    });
  }

  private serially(step: () => Promise<void>): Promise<void> {
    const run = async () => {
      if (this.session.ended) throw new Error('session ended');
      await this.session.ready();
      await step();
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => {});
    return next;
  }
}
