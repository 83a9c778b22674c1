/** Multi-node routing of one engine (PostgreSQL only): built in compose.ts, run by http/node-feature.ts. */
import type { NodeRegistry } from './node-registry.js';
import type { NodeRouter } from './node-routing.js';

export interface NodesService {
  registry: NodeRegistry;
  router: NodeRouter;
  /** `--node-url` checked (an http origin), when configured. */
  nodeUrl?: string;
  /** The address this node listens on (the default `internal_url`). */
  listenUrl(): string;
}
