/**
 * The sweep every node runs every `SWEEP_MS` (node-lease.ts): read the other nodes' leases, end
 * here what other nodes ended of ours, and end/adopt what lost nodes ran. One sweep at a time:
 * on a busy machine or database a slow sweep delays the next instead of piling them up.
 */
import type { NodeRegistry } from './node-registry.js';
import type { NodeRouter } from './node-routing.js';
import { SWEEP_MS } from './node-lease.js';

export class NodeSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** Sweeps completed since start (tests count sweeps instead of waiting for time). */
  sweeps = 0;

  constructor(
    private readonly registry: NodeRegistry,
    private readonly router: NodeRouter,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(): void {
    this.running = true;
    this.schedule();
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => void this.sweep().finally(() => this.schedule()), SWEEP_MS);
    this.timer.unref();
  }

  private async sweep(): Promise<void> {
    try {
      await this.registry.observeLeases();
      await this.router.reapEndedElsewhere();
      await this.router.sweepDeadNodes();
      this.sweeps++;
    } catch (err) {
      this.onError(err);
    }
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }
}
