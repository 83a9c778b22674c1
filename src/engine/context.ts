/**
 * What every feature of a running engine can reach: configuration, storage, clock, the org
 * services, auth hooks, the WebSocket upgrade router, and a stop list. Features receive this
 * in `register`, beside the typed services they use (services.ts, built by compose.ts).
 */
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { EngineConfig } from './config.js';
import type { Database } from './store/schema.js';
import type { Store } from './store/database.js';
import type { Authenticator } from './http/auth.js';
import type { UpgradeRouter } from './http/upgrade-router.js';
import type { LogLine } from '../shared/wire/system-status.js';
import type { Projects } from './domain/org/projects.js';
import type { ApiKeyAuthority } from './domain/org/api-keys.js';
import type { Clock } from '../shared/clock.js';
import type { ResourceChanges } from './events/resource-changes.js';
import type { EgressPolicy } from './runtime/proxy-forwarder/egress-policy.js';

export interface EngineContext {
  config: EngineConfig;
  store: Store;
  db: Kysely<Database>;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The log's last lines, for `GET /system` (kept by `http/log-tail.ts`). */
  logTail: { snapshot(): LogLine[] };
  orgId: string;
  projects: Projects;
  apiKeys: ApiKeyAuthority;
  /** This engine's resource changes: domain services announce their writes, the change feed listens. */
  changes: ResourceChanges;
  authenticators: Authenticator[];
  upgrades: UpgradeRouter;
  /** The engine's external address, e.g. http://127.0.0.1:8420 (known once listening). */
  publicUrl(): string;
  /** Where this engine listens, e.g. http://127.0.0.1:41234 ('' until listening). */
  listenUrl(): string;
  /**
   * What tenants' connections are held to — session browsers, apps, proxy checks: the configured
   * `--egress-deny` ranges plus, unless `--egress-allow-loopback`, this host (its loopback and its
   * own interface addresses, watched while the engine runs). One policy per engine.
   */
  tenantEgress: EgressPolicy;
  /** Runs at engine stop, in reverse order of registration. */
  onStop(fn: () => Promise<void> | void): void;
}
