/**
 * Table types of the engine's database. Timestamps are ISO-8601 text and booleans are 0/1
 * integers in both dialects, so one query layer serves SQLite and PostgreSQL alike.
 * Features that add tables extend `Database` here.
 */
import type { Generated } from 'kysely';

export interface OrgTable {
  id: string;
  name: string;
  admin_email: string;
  default_project_max_concurrent_sessions: number | null;
  created_at: string;
}

export interface ProjectTable {
  id: string;
  org_id: string;
  name: string;
  name_key: string;
  status: 'active' | 'archived';
  max_concurrent_sessions: number | null;
  max_concurrent_invocations: number | null;
  max_pooled_sessions: number | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface ApiKeyTable {
  id: string;
  org_id: string;
  project_id: string | null;
  name: string;
  /** `name` folded for case/accent-insensitive exact matches (see shared/name-key.ts). */
  name_key: string;
  key_hash: string;
  masked_key: string;
  created_by_id: string;
  created_at: string;
  expires_at: string | null;
  /** The lifetime the key was issued with (null = never expires); reused on rotation. */
  lifetime_days: number | null;
  deleted_at: string | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  org_id: string;
  timestamp: string;
  auth_strategy: string;
  user_id: string;
  email: string;
  method: string;
  path: string;
  route: string;
  domain: string;
  service: string;
  client_ip: string;
  user_agent: string;
  status: number;
  duration_ms: number;
}

export interface ProfileTable {
  id: string;
  org_id: string;
  project_id: string;
  name: string | null;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
}

export interface ExtensionTable {
  id: string;
  org_id: string;
  project_id: string;
  name: string | null;
  /** Bytes of the uploaded zip (uploads are capped well below 2 GiB, so integer suffices). */
  size_bytes: number;
  /** Lowercase hex sha256 of the uploaded zip; null for repackaged archives. */
  checksum: string | null;
  created_at: string;
  last_used_at: string | null;
}

export interface BrowserSessionTable {
  id: string;
  org_id: string;
  project_id: string;
  name: string | null;
  /** JSON: the launch options (headless, stealth, viewport, kiosk_mode, start_url, gpu, …). */
  options: string;
  /** JSON map string→string. */
  tags: string;
  /** JSON BrowserTelemetryConfig or null. */
  telemetry: string | null;
  timeout_seconds: number;
  profile_id: string | null;
  proxy_id: string | null;
  pool_id: string | null;
  pool_name: string | null;
  /** Pooled browsers only (0006-pools): null while starting, 'idle' in the pool, 'acquired' once handed out. */
  pool_state?: 'idle' | 'acquired' | null;
  invocation_id: string | null;
  /** The engine node that owns the browser process. */
  node_id: string;
  pid: number | null;
  pgid: number | null;
  xvfb_pid: number | null;
  /** The session directory: appears in its processes' command lines, checked before killing. */
  marker: string;
  created_at: string;
  deleted_at: string | null;
  ended_reason: string | null;
  /** Who or what ended it: `key:<id>`/`user:<id>`, `invocation:<id>`, `node:<id>` (migration 0018). */
  ended_by: string | null;
  uptime_ms: number | null;
}

export interface EngineSecretTable {
  name: string;
  value: string;
  created_at: string;
}

/** Identity & network (migration 0005): secrets are ciphertext (domain/secrets/secret-cipher.ts). */
export interface CredentialTable {
  id: string;
  org_id: string;
  project_id: string;
  name: string;
  domain: string;
  values_enc: string;
  /** JSON array of the stored value names (never the values). */
  value_keys: string;
  totp_secret_enc: string | null;
  sso_provider: string | null;
  created_at: string;
  updated_at: string;
}

/** Credential providers (migration 0012): org-scoped; the token is ciphertext (secret-cipher.ts). */
export interface CredentialProviderTable {
  id: string;
  org_id: string;
  name: string;
  provider_type: string;
  token_enc: string;
  cache_ttl_seconds: number;
  /** 0/1 */
  enabled: number;
  priority: number;
  created_at: string;
  updated_at: string;
}

/** OTLP telemetry destinations (migration 0014), org-scoped; headers are one ciphertext of their JSON map. */
export interface TelemetryDestinationTable {
  id: string;
  org_id: string;
  name: string;
  /** lower(name): names are unique per org regardless of case. */
  name_key: string;
  endpoint: string;
  description: string | null;
  headers_enc: string;
  consecutive_failures: number;
  last_error: string | null;
  last_error_at: string | null;
  last_success_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Audit-log export destinations (migration 0015), org-scoped; soft-deleted (`deleted_at`). */
export interface AuditExportDestinationTable {
  id: string;
  org_id: string;
  bucket: string;
  prefix: string;
  region: string;
  role_arn: string;
  kms_key_id: string | null;
  status: 'active' | 'paused';
  external_id: string;
  /** Static credentials (JSON), encrypted; null = the operator's credentials or role assumption. */
  credentials_enc: string | null;
  consecutive_failures: number;
  last_error: string | null;
  last_error_at: string | null;
  last_success_at: string | null;
  next_attempt_at: string | null;
  /** Everything recorded before this instant is delivered (null while never active). */
  cursor_at: string | null;
  /** The latest pause (to = the resume; null while paused): rows recorded in it are never exported. */
  gap_from: string | null;
  gap_to: string | null;
  /** Configuration changes so far (PATCH compares it: 409 on a concurrent change). */
  version: number;
  /** The node exporting it now, until `lease_until`. */
  lease_node: string | null;
  lease_until: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Web console sign-ins (migration 0013): a token's SHA-256 and the API key it stands for. */
export interface ConsoleSessionTable {
  token_hash: string;
  key_id: string;
  last_used_at: string;
}

export interface ProxyTable {
  id: string;
  org_id: string;
  project_id: string;
  name: string | null;
  type: 'datacenter' | 'isp' | 'residential' | 'mobile' | 'custom';
  protocol: 'http' | 'https';
  /** JSON of the public config (custom: host, port, username; never the password). */
  config: string;
  /** Custom proxies' host, for list queries. */
  host: string | null;
  password_enc: string | null;
  /** Custom proxies' `ca_bundle` (PEM), encrypted (migration 0016). */
  ca_bundle_enc: string | null;
  /** JSON array. */
  bypass_hosts: string;
  status: 'available' | 'unavailable' | null;
  /** Why the last check found it unavailable (migration 0018). */
  status_reason: string | null;
  ip_address: string | null;
  last_checked: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface AuthConnectionTable {
  id: string;
  org_id: string;
  project_id: string;
  domain: string;
  profile_name: string;
  profile_id: string | null;
  login_url: string | null;
  /** JSON array. */
  allowed_domains: string;
  /** JSON {name?, provider?, path?, auto?} or null. */
  credential: string | null;
  health_checks: number;
  health_check_interval: number;
  auto_reauth: number;
  save_credentials: number;
  record_session: number;
  proxy_id: string | null;
  browser_telemetry: string | null;
  status: 'AUTHENTICATED' | 'NEEDS_AUTH';
  /** JSON array of field types the last successful login needed (identifier, password, code, totp_code …). */
  requirements: string | null;
  post_login_url: string | null;
  sso_provider: string | null;
  /** JSON snapshot of the most recent flow (see domain/auth-connections/flow-state.ts). */
  flow: string | null;
  last_auth_check_at: string | null;
  last_login_at: string | null;
  next_check_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface AuthTimelineTable {
  id: string;
  connection_id: string;
  type: 'login' | 'reauth' | 'health_check';
  status: string;
  step: string | null;
  previous_status: string | null;
  browser_session_id: string | null;
  error_code: string | null;
  error_message: string | null;
  website_error: string | null;
  timestamp: string;
  updated_at: string;
  /** Insertion order (timestamps can tie). */
  seq: number;
  /** Replay recorded during the flow (record_session), 0009. */
  replay_id: string | null;
  /** 1 when the flow's browser session captured telemetry (browser_telemetry), 0009. */
  telemetry_captured: number | null;
}

export interface BrowserPoolTable {
  id: string;
  org_id: string;
  project_id: string;
  name: string | null;
  size: number;
  /** JSON PoolConfig as the API returns it (browser_pool_config). */
  config: string;
  profile_id: string | null;
  /** The engine node that launches and hands out this pool's browsers. */
  node_id: string;
  created_at: string;
  updated_at: string;
}

export interface DeploymentTable {
  id: string;
  org_id: string;
  project_id: string;
  status: 'queued' | 'in_progress' | 'running' | 'failed' | 'stopped';
  status_reason: string | null;
  entrypoint_rel_path: string;
  /** JSON object NAME → value. */
  env_vars: string;
  version: string;
  force: number;
  source_type: 'file' | 'local';
  source_checksum: string | null;
  /** For deployments made from a directory of the engine's machine. */
  local_path: string | null;
  node_id: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface AppVersionTable {
  id: string;
  org_id: string;
  project_id: string;
  app_name: string;
  version: string;
  deployment_id: string;
  /** JSON array of {name}. */
  actions: string;
  created_at: string;
}

export interface InvocationTable {
  id: string;
  org_id: string;
  project_id: string;
  app_name: string;
  action_name: string;
  version: string;
  deployment_id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  status_reason: string | null;
  payload: string | null;
  output: string | null;
  is_async: number;
  timeout_seconds: number;
  /** SHA-256 of the invocation-scoped API key handed to the action. */
  key_hash: string;
  node_id: string;
  started_at: string;
  finished_at: string | null;
}

export interface AppEventTable {
  /** A deployment or invocation id. */
  owner_id: string;
  seq: number;
  created_at: string;
  /** The wire event as JSON text. */
  event: string;
}

/** Replay recordings (kept after their session ends until `expires_at`). */
export interface ReplayTable {
  id: string;
  session_id: string;
  org_id: string;
  project_id: string;
  node_id: string;
  status: 'recording' | 'finishing' | 'ready' | 'failed';
  framerate: number;
  file: string;
  size_bytes: number | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  expires_at: string | null;
}

/** Engine nodes sharing this database (multi-node; see domain/nodes/). */
export interface EngineNodeTable {
  id: string;
  /** Where other nodes forward requests for this node's sessions and pools. */
  internal_url: string;
  started_at: string;
  heartbeat_at: string;
  /** Set while the node stops cleanly; cleared when it starts again. */
  stopped_at: string | null;
  /** The node's `--region`: creates asking for it are placed on this node (default `us-east`). */
  region: Generated<string>;
  /**
   * The advisory lock key (int4, with NODE_LEASE_CLASS) this node holds while it lives; NULL for
   * a node without a lease (an older version), judged by its heartbeat alone.
   */
  lease_key: Generated<number | null>;
}

export interface Database {
  orgs: OrgTable;
  projects: ProjectTable;
  api_keys: ApiKeyTable;
  audit_logs: AuditLogTable;
  profiles: ProfileTable;
  browser_sessions: BrowserSessionTable;
  browser_pools: BrowserPoolTable;
  engine_secrets: EngineSecretTable;
  credentials: CredentialTable;
  credential_providers: CredentialProviderTable;
  proxies: ProxyTable;
  auth_connections: AuthConnectionTable;
  auth_timeline: AuthTimelineTable;
  deployments: DeploymentTable;
  app_versions: AppVersionTable;
  invocations: InvocationTable;
  app_events: AppEventTable;
  replays: ReplayTable;
  engine_nodes: EngineNodeTable;
  extensions: ExtensionTable;
  console_sessions: ConsoleSessionTable;
  telemetry_destinations: TelemetryDestinationTable;
  audit_export_destinations: AuditExportDestinationTable;
}
