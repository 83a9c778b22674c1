/**
 * Wire schema of an audit log entry (`GET /audit-logs`, export chunks): TypeBox, so the engine
 * validates and documents with it and the renderer and the domain share its static type.
 */
import { Type, type Static } from '@sinclair/typebox';

export const AuditLogEntrySchema = Type.Object({
  timestamp: Type.String({ format: 'date-time' }),
  auth_strategy: Type.String(),
  user_id: Type.String(),
  email: Type.String(),
  method: Type.String(),
  path: Type.String(),
  route: Type.String(),
  domain: Type.String(),
  client_ip: Type.String(),
  user_agent: Type.String(),
  status: Type.Integer(),
  duration_ms: Type.Integer(),
});
/** Every field is always present. */
export type AuditLogEntry = Static<typeof AuditLogEntrySchema>;
