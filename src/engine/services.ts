/**
 * Every service of a running engine, by name and type. `compose.ts` builds them, in one place
 * and in dependency order; a feature names the ones it uses in its type
 * (`Feature<'sessions' | 'telemetry'>`) and receives exactly those, typed, in `register`.
 * A service that may be missing is optional here, so its users must handle it.
 */
import type { AuditWriter } from './domain/audit/audit-writer.js';
import type { SecretCipher } from './domain/secrets/secret-cipher.js';
import type { Limits } from './domain/org/limits.js';
import type { ProfileService } from './domain/profiles/profile-binding.js';
import type { ExtensionService } from './domain/extensions/extension-service.js';
import type { Proxies } from './domain/proxies/proxies.js';
import type { SessionProxyRouting } from './domain/proxies/session-proxy-routing.js';
import type { SessionManager } from './domain/sessions/session-manager.js';
import type { PoolService } from './domain/pools/pool-service.js';
import type { Credentials } from './domain/credentials/credentials.js';
import type { ProviderService } from './domain/credential-providers/provider-service.js';
import type { AuthConnections } from './domain/auth-connections/auth-connections.js';
import type { AuthTimeline } from './domain/auth-connections/auth-timeline.js';
import type { AuthService } from './domain/auth-connections/auth-service.js';
import type { HealthChecks } from './domain/auth-connections/health-checks.js';
import type { AppEventLog } from './domain/apps/app-event-log.js';
import type { AppVersions } from './domain/apps/app-versions.js';
import type { SqliteAuditWorker } from './domain/audit/audit-sqlite-worker.js';
import type { ReplayService } from './domain/replays/replay-service.js';
import type { Deployments } from './domain/deployments/deployments.js';
import type { Invocations } from './domain/invocations/invocations.js';
import type { NodesService } from './domain/nodes/nodes-service.js';
import type { RecoveryReport } from './domain/recovery-report.js';
import type { ServiceLogs } from './runtime/service-logs.js';
import type { SessionDisks } from './runtime/session/session-disks.js';
import type { LiveViewService } from './runtime/live-view/live-view-state.js';
import type { TelemetryService } from './runtime/telemetry/telemetry-service.js';
import type { CallLimits } from './runtime/limits/call-limits.js';
import type { ProcessTable } from './runtime/processes/process-table.js';
import type { PostmortemStore } from './runtime/postmortem/postmortem-store.js';
import type { TelemetryExports } from './domain/telemetry-destinations/telemetry-exports.js';
import type { AuditExportDestinations } from './domain/audit/export-destinations.js';
import type { AuditExporter } from './domain/audit/export-runner.js';

export interface EngineServices {
  /** The batching audit-log writer (flushed by `/audit_logs` reads and at stop). */
  auditWriter: AuditWriter;
  /** Its worker thread on a SQLite file (none on PostgreSQL or in memory). */
  auditWorker?: SqliteAuditWorker;
  /** The one cipher of stored secrets (credentials, proxies, credential providers). */
  secrets: SecretCipher;
  /** Org and project session caps. */
  limits: Limits;
  /** What the recoveries at start ended, logged once after them. */
  recovery: RecoveryReport;
  /** Per-session log rings of a session's own processes (`/logs/stream?source=supervisor`). */
  serviceLogs: ServiceLogs;
  /** Each session's filesystem quota (a loop-mounted disk per session, or none: `/healthz` says which). */
  sessionDisks: SessionDisks;
  profiles: ProfileService;
  extensions: ExtensionService;
  proxies: Proxies;
  /** A session's proxy: launch flags, its local forwarder, live switching. */
  proxyRouting: SessionProxyRouting;
  sessions: SessionManager;
  /** Live-view cursor state other features set. */
  liveView: LiveViewService;
  telemetry: TelemetryService;
  /** Every process of every session (`process/spawn`, `exec`): the `/processes` list, kept past the session's end. */
  processes: ProcessTable;
  /** Ended sessions' telemetry, service logs and processes, on disk within the retention. */
  postmortem: PostmortemStore;
  /** OTLP destinations and the sessions' running exports to them. */
  telemetryExports: TelemetryExports;
  /** The bound on concurrent exec/execute calls per session and per engine. */
  callLimits: CallLimits;
  replays: ReplayService;
  pools: PoolService;
  credentials: Credentials;
  credentialProviders: ProviderService;
  /** Managed auth: connection records, their timeline, login flows, health checks. */
  auth: AuthConnectionServices;
  /** Apps: deployments, invocations, their shared event log and app versions. */
  apps: AppServices;
  /** Multi-node routing: present on PostgreSQL only (SQLite is one node by construction). */
  nodes?: NodesService;
  /** Audit-log export destinations and the exporter that delivers them (issue 15 §13). */
  auditExport: AuditExportServices;
}

export interface AuditExportServices {
  records: AuditExportDestinations;
  exporter: AuditExporter;
}

export interface AuthConnectionServices {
  connections: AuthConnections;
  timeline: AuthTimeline;
  flows: AuthService;
  health: HealthChecks;
}

export interface AppServices {
  events: AppEventLog;
  versions: AppVersions;
  deployments: Deployments;
  invocations: Invocations;
}

/** The names of the services, for `Feature<K>`. */
export type ServiceName = keyof EngineServices;
