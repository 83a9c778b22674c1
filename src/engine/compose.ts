/**
 * The composition root: builds every service of an engine (`EngineServices`), once, in
 * dependency order, handing each the services it calls (hooks on a route are declared in that
 * route's file, e.g. api/browsers.ts). Features start and stop what they own (stop hooks,
 * recoveries, timers) in `register`/`started`, in the order features.ts lists them; telemetry and
 * replays run unref'd sweep timers from their construction and are stopped by their features.
 * The audit worker thread is the one thing built here that holds an OS resource: a stop hook
 * registered here closes it also when a later step of the start throws.
 */
import path from 'node:path';
import type { EngineContext } from './context.js';
import type { EngineServices } from './services.js';
import { AuditWriter } from './domain/audit/audit-writer.js';
import { auditExportSettings } from './domain/audit/export-settings.js';
import { AuditExportDestinations } from './domain/audit/export-destinations.js';
import { AuditExporter } from './domain/audit/export-runner.js';
import { kyselyBatchInsert } from './domain/audit/audit-insert.js';
import { startSqliteAuditWorker } from './domain/audit/audit-sqlite-worker.js';
import { SecretCipher } from './domain/secrets/secret-cipher.js';
import { defaultSecretKeyProvider } from './domain/secrets/secret-key-provider.js';
import { Limits } from './domain/org/limits.js';
import { RecoveryReport } from './domain/recovery-report.js';
import { Profiles } from './domain/profiles/profiles.js';
import { ProfileStore } from './domain/profiles/profile-store.js';
import { profileService } from './domain/profiles/profile-binding.js';
import { Extensions } from './domain/extensions/extensions.js';
import { extensionService } from './domain/extensions/extension-service.js';
import { Proxies } from './domain/proxies/proxies.js';
import { loadProviderConfig } from './domain/proxies/proxy-providers.js';
import { SessionProxyRouting } from './domain/proxies/session-proxy-routing.js';
import { SessionManager } from './domain/sessions/session-manager.js';
import { SessionJwt, loadSessionJwtKey } from './domain/sessions/session-jwt.js';
import { nodeIdOf } from './domain/sessions/session-recovery.js';
import { PoolService } from './domain/pools/pool-service.js';
import { Credentials } from './domain/credentials/credentials.js';
import { CredentialProviders } from './domain/credential-providers/credential-providers.js';
import { ProviderAccess } from './domain/credential-providers/provider-access.js';
import { ProviderService } from './domain/credential-providers/provider-service.js';
import { OnePasswordAdapter } from './domain/credential-providers/onepassword-adapter.js';
import { AuthConnections } from './domain/auth-connections/auth-connections.js';
import { AuthTimeline } from './domain/auth-connections/auth-timeline.js';
import { AuthService } from './domain/auth-connections/auth-service.js';
import { HealthChecks } from './domain/auth-connections/health-checks.js';
import { profileAccess } from './domain/auth-connections/profile-access.js';
import { DEFAULT_FLOW_ACTION_TIMEOUT_MS } from './domain/auth-connections/flow-input.js';
import { DEFAULT_MIN_HEALTH_CHECK_INTERVAL_SECONDS } from './domain/secrets/identity-options.js';
import { ReplayService } from './domain/replays/replay-service.js';
import { AppEventLog } from './domain/apps/app-event-log.js';
import { AppVersions } from './domain/apps/app-versions.js';
import { Deployments } from './domain/deployments/deployments.js';
import { Invocations } from './domain/invocations/invocations.js';
import { invocationRunner } from './domain/invocations/invocation-run.js';
import { NodeRegistry } from './domain/nodes/node-registry.js';
import { NodeRouter } from './domain/nodes/node-routing.js';
import { NodeSweeper } from './domain/nodes/node-sweeper.js';
import { LEASE_RETRY_MS, NODE_LEASE_CLASS, leaseKeyOf } from './domain/nodes/node-lease.js';
import { holdAdvisoryLease } from './store/pg-advisory-lease.js';
import { ServiceLogs } from './runtime/service-logs.js';
import { SessionRuntime } from './runtime/session/session-runtime.js';
import { SessionDisks } from './runtime/session/session-disks.js';
import { HostCommands } from './runtime/host-commands/host-commands.js';
import { createLiveViewService } from './runtime/live-view/live-view-state.js';
import { CallLimits } from './runtime/limits/call-limits.js';
import { TelemetryService } from './runtime/telemetry/telemetry-service.js';
import { ProcessTable } from './runtime/processes/process-table.js';
import { PostmortemStore } from './runtime/postmortem/postmortem-store.js';
import { telemetryExportsOf } from './domain/telemetry-destinations/telemetry-exports-of.js';
import { noteUpgradeIdentity } from './http/upgrade-identity.js';

/** A positive number from the environment, else the default. */
const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : d);

export async function composeServices(ctx: EngineContext): Promise<EngineServices> {
  const { config, db, clock, log } = ctx;
  const env = config.env;
  const dataDir = config.dataDir;
  const nodeId = nodeIdOf(dataDir);

  // ── org-wide ──
  const auditInsert = kyselyBatchInsert(db, ctx.store.dialect);
  const file = ctx.store.sqliteFile;
  const auditWorker =
    file && file !== ':memory:'
      ? startSqliteAuditWorker(file, auditInsert, (err) => log.error({ err }, 'audit worker failed; writing audit rows on the main thread'))
      : undefined;
  // The audit feature closes it at stop after the last rows; this closes it too when a later step of the start throws.
  if (auditWorker) ctx.onStop(() => auditWorker.close());
  const auditWriter = new AuditWriter(auditWorker?.insert ?? auditInsert, {
    onError: (err, rows) => log.error({ err, rows }, 'audit log write failed; rows kept for retry'),
  });
  // Desktop: the OS keychain; server: an env variable, else a key file.
  const secrets = new SecretCipher(config.identity.secretKeyProvider ?? defaultSecretKeyProvider(env, dataDir));
  await secrets.ready();
  const exportSettings = auditExportSettings(env);
  const exportRecords = new AuditExportDestinations(db, clock, secrets, exportSettings.principalArn);
  const auditExport = {
    records: exportRecords,
    exporter: new AuditExporter({
      db,
      clock,
      records: exportRecords,
      settings: exportSettings,
      nodeId,
      flush: () => auditWriter.flush(),
      log: (msg, err) => log.warn({ err }, msg),
    }),
  };
  const changes = ctx.changes;
  const limits = new Limits(db, ctx.projects, config.maxConcurrentSessions, changes);
  const recovery = new RecoveryReport();
  const serviceLogs = new ServiceLogs();

  // ── what a session is made of ──
  const profiles = profileService(new Profiles(db, clock, new ProfileStore(path.join(dataDir, 'profiles')), changes));
  const extensions = extensionService(new Extensions(db, clock, path.join(dataDir, 'extensions'), changes));
  const proxies = new Proxies(db, clock, secrets, loadProviderConfig({ configured: config.identity.proxyProviders, env, dataDir }), changes);
  const proxyRouting = new SessionProxyRouting(proxies, {
    connectTimeoutMs: config.identity.proxyTimeoutMs ?? 10_000,
    log: (msg) => log.warn(msg),
    policy: ctx.tenantEgress,
  });
  // Each session's filesystem is its own quota'd disk where the host allows (session-disks.ts);
  // probed (the template formatted) now, so the first create does not pay for it.
  const sessionDisks = new SessionDisks({
    dataDir,
    perSessionMb: config.sessionDiskMb,
    onUnavailable: (reason) => log.warn(reason),
  });
  void sessionDisks.ready();
  // A stop while the probe mounts its test disk would leave that mount behind; the command
  // helper ends after it (stop hooks registered here run after the features', whose sessions unmount).
  ctx.onStop(() => sessionDisks.ready().then(() => sessionDisks.close()));
  // Browsers are forked by a helper of their own, not the engine (host-commands.ts); one apart from
  // the disks' so a disk command that hangs (its helper killed) never takes the browsers along.
  const launches = new HostCommands();
  ctx.onStop(() => launches.close());
  const jwt = new SessionJwt(await loadSessionJwtKey(db, clock.now()), () => clock.now());
  const sessions = new SessionManager(ctx, jwt, nodeId, noteUpgradeIdentity, {
    profiles,
    proxies: proxyRouting,
    extensions,
    serviceLogs,
    newRuntime: (spec) =>
      new SessionRuntime(spec, {
        disks: sessionDisks,
        start: launches.start,
        // The tenant's writes now fail with ENOSPC on its own disk: one event says why.
        onFull: (id, f) =>
          telemetry.emit(id, 'system', 'system_limit_reached', {
            source: { kind: 'local_process' },
            data: { resource: 'disk', limit_mb: f.limitMb, ...(f.inodes ? { inodes: true } : {}) },
          }),
      }),
  });

  // ── what runs beside a session ──
  const liveView = createLiveViewService();
  const telemetry = new TelemetryService({
    bufferEvents: num(env.BROWSERDECK_TELEMETRY_BUFFER_EVENTS, 4096),
    bufferBytes: num(env.BROWSERDECK_TELEMETRY_BUFFER_BYTES, 32 * 1024 * 1024),
    retainEndedMs: 10 * 60_000,
    screenshotIntervalMs: num(env.BROWSERDECK_TELEMETRY_SCREENSHOT_MS, 10_000),
    now: () => clock.now().getTime(),
  });
  const telemetryExports = telemetryExportsOf(ctx, secrets, telemetry);
  // One budget of concurrent exec/execute calls per session and per engine (their output lives in the engine).
  const callLimits = new CallLimits(config.execLimits, (fields, message) => log.warn(fields, message));
  const replayRetentionMs = config.replayRetentionHours * 3600_000;
  // Every process a session runs (process/spawn, exec), listed and kept past the session's end.
  const processes = new ProcessTable([dataDir]);
  // What an ended session leaves behind (telemetry, service logs, processes), kept like its replays unless told otherwise.
  const postmortem = new PostmortemStore({
    dataDir,
    retentionMs: config.postmortemRetentionHours * 3600_000,
    sweepIntervalMs: 10 * 60_000,
    now: () => clock.now().getTime(),
    telemetry,
    serviceLogs,
    processes,
    log: (err, message) => log.warn({ err }, message),
  });
  const replays = new ReplayService({
    db,
    dataDir,
    insecureNoJail: config.insecureNoJail,
    hide: [dataDir],
    nodeId,
    now: () => clock.now(),
    retentionMs: replayRetentionMs,
    sweepIntervalMs: 10 * 60_000,
    maxFramerate: 20,
    defaultFramerate: 10,
    maxDurationSeconds: 4 * 3600,
    cursor: (id) => liveView.cursor(id),
    log: (id, chunk) => serviceLogs.append(id, 'recorder', chunk),
    onCrash: (id) =>
      telemetry.emit(id, 'system', 'service_crashed', {
        source: { kind: 'local_process' },
        data: { phase: 'running', service_name: 'recorder' },
      }),
    // A finished recording changes what its session offers (the console's Replays pane, the desktop's "recording ready").
    onSettled: (h) => changes.upsert(h.orgId, 'session', h.id, h.projectId),
  });
  const pools = new PoolService(ctx, { sessions, profiles, proxies: proxyRouting, extensions });

  // ── identity ──
  const credentials = new Credentials(db, clock, secrets, changes);
  const providerRecords = new CredentialProviders(db, clock, secrets, changes);
  const credentialProviders = new ProviderService(
    providerRecords,
    new ProviderAccess({
      clock,
      timeoutMs: config.identity.credentialProviderTimeoutMs ?? 15_000,
      tokenOf: (row) => providerRecords.tokenOf(row),
      adapterFor: (_type, token) => new OnePasswordAdapter(token),
    }),
  );
  const minInterval = config.identity.minHealthCheckIntervalSeconds ?? DEFAULT_MIN_HEALTH_CHECK_INTERVAL_SECONDS;
  const connections = new AuthConnections(db, clock, { minInterval }, changes);
  const timeline = new AuthTimeline(db, clock);
  const authLog = (msg: string, err?: unknown) => log.warn({ err }, msg);
  const flows = new AuthService({
    connections,
    timeline,
    credentials,
    providers: credentialProviders,
    sessions: () => sessions,
    profiles: () => profileAccess(profiles),
    replays,
    clock,
    flowTtlMs: (config.identity.authFlowTtlSeconds ?? 600) * 1000,
    flowTimers: config.identity.flowTimers,
    flowActionTimeoutMs: config.identity.flowActionTimeoutMs ?? DEFAULT_FLOW_ACTION_TIMEOUT_MS,
    publicUrl: () => ctx.publicUrl(),
    log: authLog,
  });
  const health = new HealthChecks({
    connections,
    timeline,
    service: flows,
    sessions: () => sessions,
    clock,
    tickMs: Math.min(15_000, Math.max(250, (minInterval * 1000) / 4)),
    log: authLog,
  });

  // ── apps ──
  const events = new AppEventLog(db, clock, { onWriteError: (err) => log.error({ err }, 'storing app events failed') });
  const versions = new AppVersions(db);
  const deployments = new Deployments(ctx, events, versions, nodeId);
  const invocations = new Invocations(ctx, events, versions, limits, nodeId, () => sessions, recovery);
  invocations.runner = invocationRunner(ctx, invocations, deployments);
  deployments.onDelete = (id) => invocations.failForDeployment(id);

  // ── several nodes (PostgreSQL only) ──
  let nodes: EngineServices['nodes'];
  if (ctx.store.dialect === 'postgres') {
    const configured = checkedNodeUrl(config.nodeUrl);
    if (!config.databaseUrl) throw new Error('a PostgreSQL store without its URL');
    // The lease lives as long as the engine: taken before this node announces itself, released
    // (registered here, so it runs after every feature's stop) once its sessions have ended.
    const key = leaseKeyOf(sessions.nodeId);
    const lease = holdAdvisoryLease(config.databaseUrl, [NODE_LEASE_CLASS, key], {
      retryMs: LEASE_RETRY_MS,
      applicationName: `browserdeck node ${sessions.nodeId}`,
      onChange: (held) =>
        held
          ? log.info("holding this node's database lease")
          : log.warn('this node lost its database lease: it claims nothing of other nodes until it holds it again'),
      onError: (err) => log.warn({ err }, 'node lease'),
    });
    ctx.onStop(() => lease.close());
    if (!(await lease.ready)) log.warn('this node does not hold its database lease yet; retrying');
    const registry = new NodeRegistry(
      db,
      sessions.nodeId,
      config.region,
      clock,
      (err) => log.warn({ err }, 'node heartbeat failed'),
      { key, heldSince: () => lease.heldSince() },
      config.nodeHeartbeatTimeoutSeconds * 1000,
    );
    const router = new NodeRouter(db, registry, sessions, () => pools, clock, changes);
    nodes = {
      registry,
      router,
      sweeper: new NodeSweeper(registry, router, (err) => log.warn({ err }, 'node sweep failed')),
      nodeUrl: configured,
      listenUrl: () => configured ?? ctx.listenUrl(),
    };
  }

  return {
    auditWriter,
    auditWorker,
    secrets,
    limits,
    recovery,
    serviceLogs,
    sessionDisks,
    profiles,
    extensions,
    proxies,
    proxyRouting,
    sessions,
    liveView,
    telemetry,
    processes,
    postmortem,
    telemetryExports,
    callLimits,
    replays,
    pools,
    credentials,
    credentialProviders,
    auth: { connections, timeline, flows, health },
    apps: { events, versions, deployments, invocations },
    nodes,
    auditExport,
  };
}

/** `nodeUrl` as other nodes will call it: an http origin, checked before anything listens. */
function checkedNodeUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`nodeUrl (--node-url / BROWSERDECK_NODE_URL) is not a URL: ${url}`);
  }
  if (u.protocol !== 'http:') throw new Error(`nodeUrl must be an http:// address other nodes can reach, not ${url}`);
  return u.origin;
}
