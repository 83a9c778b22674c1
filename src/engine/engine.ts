/**
 * `createEngine()`: the whole engine as a library. `start()` opens storage, bootstraps the
 * organization on first start, registers every feature and listens; `stop()` runs every
 * feature's stop hook (sessions, streams, processes) and closes storage.
 */
import { egressPolicyOf, tenantEgressPolicyOf } from './runtime/proxy-forwarder/egress-policy.js';
import { hostAddressList, watchHostAddresses } from './runtime/proxy-forwarder/host-addresses.js';
import { assertServable, jailStatus } from './runtime/sandbox/jail-status.js';
import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { resolveConfig, type EngineConfig, type EngineOptions } from './config.js';
import { openStore, type Store } from './store/database.js';
import { createHttpServer } from './http/server.js';
import { LogTail } from './http/log-tail.js';
import { installAuth } from './http/auth.js';
import { UpgradeRouter } from './http/upgrade-router.js';
import { Projects } from './domain/org/projects.js';
import { ResourceChanges } from './events/resource-changes.js';
import { ApiKeyAuthority } from './domain/org/api-keys.js';
import { bootstrapOrg } from './domain/org/bootstrap.js';
import { issueLaunchKey } from './domain/org/launch-key.js';
import type { EngineContext } from './context.js';
import { features as defaultFeatures } from './features.js';
import type { AnyFeature } from './feature.js';
import { composeServices } from './compose.js';
import type { EngineServices } from './services.js';
import { serveUi } from './http/serve-ui.js';
import { recoveredLine } from './domain/recovery-report.js';
import { configureEngineAssets, missingEngineAssets } from './runtime/assets.js';
import { configureJailUids } from './runtime/sandbox/jail-user.js';
import { configureRunnerMessageLimit } from './runtime/sandbox/runner-channel.js';
import { configurePids, pidsMethod, sweepDeadEngineGroups } from './runtime/sandbox/pids-group.js';
import { sweepDeadMemoryGroups } from './runtime/sandbox/memory-group.js';
import { tenantsCpuGroup } from './runtime/sandbox/cpu-group.js';
import { acquirePidFile } from './store/engine-pid-file.js';
import { installResourceLookupFirst } from './http/resource-lookup-first.js';
import { ConnectionLimits } from './runtime/limits/connection-limits.js';
import { connectionCapFor, softNofile } from './runtime/limits/open-file-limit.js';

export interface Engine {
  readonly config: EngineConfig;
  /** The listening address, e.g. http://127.0.0.1:8420. */
  readonly url: string;
  /** The admin key, when this start created the organization. */
  readonly adminApiKey?: string;
  /** With `ephemeralAdminKey`: the org-wide key valid only while this engine runs. */
  readonly launchApiKey?: string;
  readonly context: EngineContext;
  /** The services compose.ts built (once started). */
  readonly services: EngineServices;
  start(): Promise<{ url: string }>;
  stop(): Promise<void>;
}

export function createEngine(options: EngineOptions = {}, featureList: AnyFeature[] = defaultFeatures): Engine {
  const config = resolveConfig(options);
  let app: FastifyInstance | undefined;
  let store: Store | undefined;
  let url = '';
  let adminApiKey: string | undefined;
  let launchApiKey: string | undefined;
  let context: EngineContext | undefined;
  let services: EngineServices | undefined;
  const stopHooks: Array<() => Promise<void> | void> = [];
  let stopping: Promise<void> | undefined;
  let restoreAssets: (() => void) | undefined;
  let releasePidFile: (() => void) | undefined;

  const engine: Engine = {
    config,
    get url() {
      return url;
    },
    get adminApiKey() {
      return adminApiKey;
    },
    get launchApiKey() {
      return launchApiKey;
    },
    get context() {
      if (!context) throw new Error('engine not started');
      return context;
    },
    get services() {
      if (!services) throw new Error('engine not started');
      return services;
    },
    async start() {
      restoreAssets = configureEngineAssets({ assetsRoot: config.assetsRoot, childNode: config.childNode });
      // Jails of a root engine run as uids of this range; a malformed one fails the start.
      configureJailUids(config.jailUids);
      // What a runner of tenant code may send in one message; a malformed one fails the start.
      configureRunnerMessageLimit(config.runnerMessageMaxMb);
      // The jails' task limits (a malformed or too large one fails the start), restored at stop.
      stopHooks.push(configurePids(config.pids));
      // Probed now: this engine's pids group is made and dead engines' groups are swept before any session.
      pidsMethod();
      sweepDeadEngineGroups();
      sweepDeadMemoryGroups();
      tenantsCpuGroup();
      // A build that forgot to ship its child scripts fails here, not at the first process.
      const missing = missingEngineAssets();
      if (missing.length) throw new Error(`engine assets missing: ${missing.join(', ')}`);
      await fs.mkdir(config.dataDir, { recursive: true, mode: 0o700 });
      // One engine per data dir: a second one (another `serve`, another desktop app) fails here naming the
      // first (DataDirInUseError); `restore` reads the same lock.
      releasePidFile = acquirePidFile(config.dataDir);
      store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
      const logTail = new LogTail();
      app = await createHttpServer({ logLevel: config.logLevel, stream: logTail.tee() });
      const db = store.db;
      const changes = new ResourceChanges();
      const projects = new Projects(db, config.clock, changes);
      const apiKeys = new ApiKeyAuthority(db, config.clock);
      const boot = await bootstrapOrg({
        db,
        dialect: store.dialect,
        clock: config.clock,
        dataDir: config.dataDir,
        apiKeys,
        adminKey: config.adminApiKey,
        log: config.print,
      });
      adminApiKey = boot.adminKey;
      if (config.ephemeralAdminKey) {
        const launch = await issueLaunchKey({ db, clock: config.clock, apiKeys, orgId: boot.orgId });
        launchApiKey = launch.key;
        // Registered first so it runs last: features may still use the key while they stop.
        stopHooks.push(() => launch.revoke());
      }
      const log = app.log;
      // Every WebSocket passes one gate: per session and per engine (by default from the open-file limit).
      const connectionLimits = new ConnectionLimits(
        config.connectionLimits.perSession,
        config.connectionLimits.perEngine ?? connectionCapFor(softNofile()),
        (fields, message) => log.warn(fields, message),
      );
      const upgrades = new UpgradeRouter((err, route) => log.error({ err, route }, 'unhandled upgrade error'), connectionLimits);
      const authenticators: EngineContext['authenticators'] = [(_req, bearer) => (bearer ? apiKeys.authenticate(bearer) : null)];
      // Tenants are denied this host unless the operator allows it; its interface addresses are then watched until stop.
      const hostAddresses = config.egressLoopback ? undefined : watchHostAddresses();
      if (hostAddresses) stopHooks.push(() => hostAddresses.stop());
      context = {
        config,
        store,
        db,
        clock: config.clock,
        log: app.log,
        logTail,
        orgId: boot.orgId,
        projects,
        apiKeys,
        changes,
        authenticators,
        upgrades,
        publicUrl: () => config.publicUrl ?? url,
        listenUrl: () => url,
        tenantEgress: tenantEgressPolicyOf(config.egressDeny, config.egressLoopback, hostAddresses ?? hostAddressList([])),
        onStop: (fn) => stopHooks.push(fn),
      };
      installAuth(app, authenticators, {
        resolve: async (orgId, idOrName) => (await projects.find(orgId, idOrName)) ?? null,
        defaultProjectId: (orgId) => projects.defaultProjectId(orgId),
      });
      // Right after authentication: a resource out of the caller's reach is a 404 before any validation.
      installResourceLookupFirst(app, db);
      services = await composeServices(context);
      for (const f of featureList) await f.register(app, context, services);
      if (config.uiDir) await serveUi(app, config.uiDir);
      upgrades.attach(app.server);
      // A malformed --egress-deny range fails the start, not the first session.
      egressPolicyOf(config.egressDeny);
      const jail = await jailStatus(config);
      assertServable(config.host, jail, config.insecureNoJail);
      if (!jail.bwrap)
        log.warn(
          `browsers, processes, code and apps run WITHOUT the session jail (${jail.reason}): they can read what this engine's user can; file: URLs and download paths are held to the session by policy only`,
        );
      await app.listen({ host: config.host, port: config.port });
      const addr = app.server.address() as AddressInfo;
      const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${addr.port}`;
      for (const f of featureList) await f.started?.(context, services);
      // After a crash the recoveries above end what the last run left; say so once, loudly.
      const recovered = services.recovery.take();
      if (recovered) log.warn({ recovered }, recoveredLine(recovered));
      return { url };
    },
    stop() {
      stopping ??= (async () => {
        // Stop accepting work first, then release what features hold, then storage.
        const closing = app?.close();
        for (const fn of stopHooks.reverse()) {
          try {
            await fn();
          } catch (err) {
            app?.log.error({ err }, 'stop hook failed');
          }
        }
        await closing;
        await store?.close();
        releasePidFile?.();
        restoreAssets?.();
      })();
      return stopping;
    },
  };
  // A start that fails leaves the data dir's lock to the next try: this process may live on (tests, the desktop app's retry).
  const startOnce = engine.start;
  engine.start = async () => {
    try {
      return await startOnce();
    } catch (err) {
      releasePidFile?.();
      releasePidFile = undefined;
      throw err;
    }
  };
  return engine;
}
