/**
 * The operator's settings of audit-log export (environment only: credentials do not belong in
 * a command line that `ps` shows). Read once at engine start; docs/use/audit-export.md.
 *
 * - BROWSERDECK_AUDIT_EXPORT_S3_ENDPOINT: an S3-compatible endpoint (MinIO, Ceph, …); unset = AWS.
 * - BROWSERDECK_AUDIT_EXPORT_STS_ENDPOINT: when set (`https://sts.amazonaws.com` for AWS), each
 *   delivery assumes the destination's `role_arn` with its `external_id`; unset = no role step.
 * - BROWSERDECK_AUDIT_EXPORT_ACCESS_KEY_ID / _SECRET_ACCESS_KEY / _SESSION_TOKEN: the engine's own
 *   static credentials (used for AssumeRole, or directly without STS) where a destination has
 *   none of its own; unset = the AWS SDK's default chain (AWS_* variables, instance role).
 * - BROWSERDECK_AUDIT_EXPORT_PRINCIPAL_ARN: reported as `kernel_role_arn` (who assumes the roles).
 * - BROWSERDECK_AUDIT_EXPORT_PATH_STYLE: 1/0; default 1 with an S3 endpoint, else 0.
 * - BROWSERDECK_AUDIT_EXPORT_INTERVAL_SECONDS (60; 0 = no timer), _WINDOW_SECONDS (300, must
 *   divide 3600), _HOLD_SECONDS (600, the spec's 10 minutes), _CHUNK_ROWS (10000 per object).
 */
import type { StaticCredentials } from './export-fields.js';

export interface AuditExportSettings {
  s3Endpoint?: string;
  stsEndpoint?: string;
  credentials?: StaticCredentials;
  principalArn: string;
  forcePathStyle: boolean;
  intervalMs: number;
  windowMs: number;
  holdMs: number;
  chunkRows: number;
}

export function auditExportSettings(env: NodeJS.ProcessEnv): AuditExportSettings {
  const s3Endpoint = url(env.BROWSERDECK_AUDIT_EXPORT_S3_ENDPOINT, 'BROWSERDECK_AUDIT_EXPORT_S3_ENDPOINT');
  const stsEndpoint = url(env.BROWSERDECK_AUDIT_EXPORT_STS_ENDPOINT, 'BROWSERDECK_AUDIT_EXPORT_STS_ENDPOINT');
  const id = env.BROWSERDECK_AUDIT_EXPORT_ACCESS_KEY_ID;
  const secret = env.BROWSERDECK_AUDIT_EXPORT_SECRET_ACCESS_KEY;
  if (!!id !== !!secret) throw new Error('BROWSERDECK_AUDIT_EXPORT_ACCESS_KEY_ID and BROWSERDECK_AUDIT_EXPORT_SECRET_ACCESS_KEY go together');
  const windowSeconds = seconds(env.BROWSERDECK_AUDIT_EXPORT_WINDOW_SECONDS, 300, 'BROWSERDECK_AUDIT_EXPORT_WINDOW_SECONDS');
  if (windowSeconds === 0 || 3600 % windowSeconds !== 0)
    throw new Error('BROWSERDECK_AUDIT_EXPORT_WINDOW_SECONDS must divide 3600 (a window lies in one UTC hour)');
  const pathStyle = env.BROWSERDECK_AUDIT_EXPORT_PATH_STYLE;
  return {
    s3Endpoint,
    stsEndpoint,
    credentials:
      id && secret ? { access_key_id: id, secret_access_key: secret, session_token: env.BROWSERDECK_AUDIT_EXPORT_SESSION_TOKEN || undefined } : undefined,
    principalArn: env.BROWSERDECK_AUDIT_EXPORT_PRINCIPAL_ARN ?? '',
    forcePathStyle: pathStyle === undefined || pathStyle === '' ? !!s3Endpoint : pathStyle === '1',
    intervalMs: seconds(env.BROWSERDECK_AUDIT_EXPORT_INTERVAL_SECONDS, 60, 'BROWSERDECK_AUDIT_EXPORT_INTERVAL_SECONDS') * 1000,
    windowMs: windowSeconds * 1000,
    holdMs: seconds(env.BROWSERDECK_AUDIT_EXPORT_HOLD_SECONDS, 600, 'BROWSERDECK_AUDIT_EXPORT_HOLD_SECONDS') * 1000,
    chunkRows: Math.max(1, seconds(env.BROWSERDECK_AUDIT_EXPORT_CHUNK_ROWS, 10_000, 'BROWSERDECK_AUDIT_EXPORT_CHUNK_ROWS')),
  };
}

function url(v: string | undefined, name: string): string | undefined {
  if (!v) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new Error(`${name} is not a URL: ${v}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL: ${v}`);
  return u.toString().replace(/\/$/, '');
}

/** A whole number ≥ 0, else the default; a malformed value stops the start. */
function seconds(v: string | undefined, d: number, name: string): number {
  if (v === undefined || v === '') return d;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number ≥ 0 (got '${v}')`);
  return n;
}
