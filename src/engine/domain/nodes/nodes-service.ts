/** Multi-node routing of one engine (PostgreSQL only): built in compose.ts, run by http/node-feature.ts. */
import type { NodeRegistry } from './node-registry.js';
import type { NodeRouter } from './node-routing.js';
import type { NodeSweeper } from './node-sweeper.js';

export interface NodesService {
  registry: NodeRegistry;
  router: NodeRouter;
  /** Reads leases and ends/adopts what lost nodes ran, every second once the engine listens. */
  sweeper: NodeSweeper;
  /** `--node-url` checked (an http origin), when configured. */
  nodeUrl?: string;
  /** The address this node listens on (the default `internal_url`). */
  listenUrl(): string;
}
