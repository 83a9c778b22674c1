/**
 * Wire schemas of organization resources (TypeBox: JSON Schema + static types). The engine
 * validates and documents with them; the renderer uses the static types only.
 */
import { Type, type Static } from '@sinclair/typebox';

export const ProjectSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('archived')]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
);
export type Project = Static<typeof ProjectSchema>;

export const ErrorSchema = Type.Object({
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Array(Type.Object({ code: Type.String(), message: Type.String() }))),
  inner_error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
});
export type ApiErrorBody = Static<typeof ErrorSchema>;

/** API key record as listed (masked). `created_by` is the key that created it (our actors are keys). */
export const ApiKeySchema = Type.Object({
  id: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  created_by: Type.Object({ id: Type.String(), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }),
  deleted_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  expires_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  masked_key: Type.String(),
  name: Type.String(),
  project_id: Type.Union([Type.String(), Type.Null()]),
  project_name: Type.Union([Type.String(), Type.Null()]),
});
export type ApiKey = Static<typeof ApiKeySchema>;

/** A key right after creation or rotation: the record plus the plaintext, returned once. */
export const CreatedApiKeySchema = Type.Composite([ApiKeySchema, Type.Object({ key: Type.String() })]);
export type CreatedApiKey = Static<typeof CreatedApiKeySchema>;

const Cap = Type.Union([Type.Integer(), Type.Null()]);

/** Per-project overrides; null = no project-level cap. */
export const ProjectLimitsSchema = Type.Object({
  max_concurrent_sessions: Cap,
  max_concurrent_invocations: Cap,
  max_pooled_sessions: Cap,
});
export type ProjectLimits = Static<typeof ProjectLimitsSchema>;

export const OrgLimitsSchema = Type.Object({
  max_concurrent_sessions: Type.Integer(),
  default_project_max_concurrent_sessions: Cap,
});
export type OrgLimits = Static<typeof OrgLimitsSchema>;
