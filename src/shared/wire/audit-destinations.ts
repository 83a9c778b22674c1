/**
 * Wire schemas of audit-log export destinations (`/audit-logs/export/destinations`, Kernel
 * spec §13): where an organization's audit log is delivered continuously as `jsonl.gz` objects
 * in an S3 bucket. `credentials` is a Browserdeck addition for S3-compatible stores without
 * STS: write-only (no response field carries it), answered only as `has_credentials`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { OffsetQuery } from './pagination.js';

const DateTimeOrNull = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);
const StrOrNull = Type.Union([Type.String(), Type.Null()]);

export const AuditDestinationSchema = Type.Object({
  id: Type.String(),
  type: Type.Literal('s3'),
  format: Type.Literal('jsonl.gz'),
  bucket: Type.String(),
  prefix: Type.String(),
  region: Type.String(),
  role_arn: Type.String(),
  kms_key_id: Type.Optional(StrOrNull),
  status: Type.Union([Type.Literal('active'), Type.Literal('paused')]),
  external_id: Type.String({ description: 'the sts:ExternalId the engine presents when it assumes role_arn' }),
  kernel_role_arn: Type.String({ description: "the engine's AWS principal (operator setting BROWSERDECK_AUDIT_EXPORT_PRINCIPAL_ARN)" }),
  consecutive_failures: Type.Integer({ minimum: 0 }),
  last_error: Type.Optional(StrOrNull),
  last_error_at: Type.Optional(DateTimeOrNull),
  last_success_at: Type.Optional(DateTimeOrNull),
  next_attempt_at: Type.Optional(DateTimeOrNull),
  last_exported_cursor: Type.Optional(StrOrNull),
  has_credentials: Type.Boolean({ description: 'Browserdeck: static credentials are stored for this destination (never answered)' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type AuditDestination = Static<typeof AuditDestinationSchema>;

const Credentials = Type.Object(
  {
    access_key_id: Type.String({ minLength: 1, maxLength: 256 }),
    secret_access_key: Type.String({ minLength: 1, maxLength: 1024 }),
    session_token: Type.Optional(Type.String({ maxLength: 8192 })),
  },
  { description: 'Browserdeck: static S3 credentials for this destination (write-only, stored encrypted)' },
);
export type AuditDestinationCredentials = Static<typeof Credentials>;

// Plain strings, so a wrong value gets the message naming the supported one (not a schema error).
export const AuditDestinationCreateSchema = Type.Object({
  type: Type.String({ description: "'s3'" }),
  format: Type.String({ description: "'jsonl.gz'" }),
  bucket: Type.String({ maxLength: 255 }),
  prefix: Type.String({ maxLength: 1024 }),
  region: Type.String({ maxLength: 64 }),
  role_arn: Type.String({ maxLength: 2048 }),
  kms_key_id: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
  credentials: Type.Optional(Credentials),
});
export type AuditDestinationCreate = Static<typeof AuditDestinationCreateSchema>;

export const AuditDestinationPatchSchema = Type.Object({
  bucket: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  prefix: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
  region: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  role_arn: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()])),
  kms_key_id: Type.Optional(Type.Union([Type.String({ maxLength: 2048, description: "'' removes" }), Type.Null()])),
  status: Type.Optional(Type.Union([Type.String({ description: "'active' | 'paused'" }), Type.Null()])),
  credentials: Type.Optional(Type.Union([Credentials, Type.Null()], { description: 'null removes the stored credentials' })),
});
export type AuditDestinationPatch = Static<typeof AuditDestinationPatchSchema>;

export const AuditDestinationIdParamSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });
export const AuditDestinationListQuerySchema = Type.Object({ ...OffsetQuery });
export const AuditDestinationListSchema = Type.Array(AuditDestinationSchema);

export const AuditDestinationTestResultSchema = Type.Object({
  stage: Type.Union([Type.Literal('assume_role'), Type.Literal('put_object'), Type.Literal('complete')]),
  success: Type.Boolean(),
  error: Type.Optional(
    Type.Object({
      code: Type.Union([Type.Literal('assume_role_failed'), Type.Literal('put_object_failed')]),
      message: Type.String(),
    }),
  ),
});
export type AuditDestinationTestResult = Static<typeof AuditDestinationTestResultSchema>;
