/**
 * The wire Deployment object (wire reference §3.17) from a stored row. Environment variable
 * values are never returned: every key comes back with "" (the hosted service only shows
 * values in its dashboard; every caller here holds an API key, session token or invocation key).
 */
import type { DeploymentTable } from '../../store/schema.js';
import { REGION } from '../../../shared/wire/apps.js';

export { REGION };

export type DeploymentRow = DeploymentTable;
export type DeploymentStatus = DeploymentTable['status'];

export interface DeploymentDto {
  id: string;
  created_at: string;
  region: typeof REGION;
  status: DeploymentStatus;
  entrypoint_rel_path?: string;
  env_vars?: Record<string, string>;
  source_checksum?: string;
  source_path?: string;
  source_type?: 'file' | 'github';
  status_reason?: string;
  updated_at?: string | null;
}

export function isTerminalDeployment(status: DeploymentStatus): boolean {
  return status === 'running' || status === 'failed' || status === 'stopped';
}

/** Keys kept, values blanked. */
export function redactEnv(json: string): Record<string, string> {
  const env = JSON.parse(json) as Record<string, string>;
  return Object.fromEntries(Object.keys(env).map((k) => [k, '']));
}

export function deploymentDto(row: DeploymentRow): DeploymentDto {
  const dto: DeploymentDto = {
    id: row.id,
    created_at: row.created_at,
    region: REGION,
    status: row.status,
    entrypoint_rel_path: row.entrypoint_rel_path,
    env_vars: redactEnv(row.env_vars),
    source_type: 'file',
    updated_at: row.updated_at,
  };
  if (row.source_checksum) dto.source_checksum = row.source_checksum;
  if (row.local_path) dto.source_path = row.local_path;
  if (row.status_reason) dto.status_reason = row.status_reason;
  return dto;
}
