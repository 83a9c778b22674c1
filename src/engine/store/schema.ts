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
  /** `name` folded for case/accent-insensitive exact matches (see name-key.ts). */
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

export interface Database {
  orgs: OrgTable;
  projects: ProjectTable;
  api_keys: ApiKeyTable;
  audit_logs: AuditLogTable;
  profiles: ProfileTable;
}
