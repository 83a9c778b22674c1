/**
 * Notices when a session has filled its own filesystem (its byte quota, session-disks.ts): the
 * tenant's writes then fail with ENOSPC, and the engine says so once in the session's telemetry
 * and log instead of leaving it to guess. A statfs of the session's mount every few seconds is
 * all it costs (no walk, no event loop stall). It fires once per filling: only after the session
 * has freed twice the margin again can a later filling be reported.
 *
 * "Full" has a margin: ext4 refuses a write while a little space still shows free (its delayed
 * allocation keeps a watermark: measured ~0.4 MiB of a 16 MiB disk, ~0.9 MiB of 256 MiB).
 */
import type { SessionDisk } from './session-disks.js';

/** Below this much free space (or with no free inode) the session's disk counts as full. */
const MARGIN_BYTES = 2 * 1024 * 1024;
const MARGIN_SHARE = 0.01;
const CHECK_EVERY_MS = 2_000;

export interface DiskFull {
  /** The session's quota in MiB. */
  limitMb: number;
  /** Whether it ran out of inodes rather than bytes. */
  inodes: boolean;
}

export class DiskFullWatch {
  private readonly timer: NodeJS.Timeout;
  private reported = false;
  private checking = false;

  constructor(
    private readonly disk: SessionDisk,
    private readonly onFull: (f: DiskFull) => void,
    everyMs = CHECK_EVERY_MS,
  ) {
    this.timer = setInterval(() => void this.check(), everyMs);
    this.timer.unref();
  }

  /** One look at the disk (also what the timer runs); a failed statfs (unmounted meanwhile) is no news. */
  async check(): Promise<void> {
    if (this.checking) return;
    this.checking = true;
    try {
      const f = await this.disk.free();
      const margin = Math.max(MARGIN_BYTES, f.totalBytes * MARGIN_SHARE);
      const full = f.bytes < margin || f.inodes === 0;
      if (full && !this.reported) {
        this.reported = true;
        this.onFull({ limitMb: this.disk.sizeMb, inodes: f.inodes === 0 });
      } else if (!full && f.bytes > 2 * margin) this.reported = false;
    } catch {
      /* the session is ending */
    } finally {
      this.checking = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
