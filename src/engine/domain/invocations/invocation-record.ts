/** The wire Invocation object (wire reference §3.19) from a stored row. */
import type { InvocationTable } from '../../store/schema.js';

export type InvocationRow = InvocationTable;
export type InvocationStatus = InvocationTable['status'];

export interface InvocationDto {
  id: string;
  action_name: string;
  app_name: string;
  version: string;
  started_at: string;
  status: InvocationStatus;
  finished_at?: string | null;
  output?: string;
  payload?: string;
  status_reason?: string;
}

export function isTerminalInvocation(status: InvocationStatus): boolean {
  return status === 'succeeded' || status === 'failed';
}

export function invocationDto(row: InvocationRow): InvocationDto {
  const dto: InvocationDto = {
    id: row.id,
    action_name: row.action_name,
    app_name: row.app_name,
    version: row.version,
    started_at: row.started_at,
    status: row.status,
    finished_at: row.finished_at,
  };
  if (row.output !== null) dto.output = row.output;
  if (row.payload !== null) dto.payload = row.payload;
  if (row.status_reason) dto.status_reason = row.status_reason;
  return dto;
}

/** What `POST /invocations` answers. */
export function createResponse(row: InvocationRow): { id: string; action_name: string; status: InvocationStatus; output?: string; status_reason?: string } {
  const out: { id: string; action_name: string; status: InvocationStatus; output?: string; status_reason?: string } = {
    id: row.id,
    action_name: row.action_name,
    status: row.status,
  };
  if (row.output !== null) out.output = row.output;
  if (row.status_reason) out.status_reason = row.status_reason;
  return out;
}
