/**
 * Wire schemas of apps (wire reference §3.2), deployments (§3.17) and invocations (§3.19):
 * the objects and the request bodies and queries. The engine validates and documents with
 * them; the UI uses the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { OffsetQuery } from './pagination.js';
import { SessionSchema } from './sessions.js';

/** The only region of the hosted service; everything runs on this engine. */
export const REGION = 'aws.us-east-1a';

export const AppVersionSchema = Type.Object({
  id: Type.String(),
  app_name: Type.String(),
  version: Type.String(),
  deployment: Type.String(),
  region: Type.Literal(REGION),
  env_vars: Type.Record(Type.String(), Type.String()),
  actions: Type.Array(Type.Object({ name: Type.String() })),
});
export type AppVersion = Static<typeof AppVersionSchema>;
export const AppVersionListSchema = Type.Array(AppVersionSchema);
export const AppListQuerySchema = Type.Object({
  ...OffsetQuery,
  app_name: Type.Optional(Type.String({ maxLength: 255 })),
  version: Type.Optional(Type.String({ maxLength: 255 })),
  query: Type.Optional(Type.String({ maxLength: 255 })),
});

/** `id` of a deployment or an invocation in a path. */
export const AppObjectIdParamSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });
/** `?since=` of an events stream: an instant or a duration back from now. */
export const EventsSinceQuerySchema = Type.Object({ since: Type.Optional(Type.String({ maxLength: 64 })) });

export const DeploymentSchema = Type.Object(
  {
    id: Type.String(),
    created_at: Type.String(),
    region: Type.Literal(REGION),
    status: Type.Union([Type.Literal('queued'), Type.Literal('in_progress'), Type.Literal('running'), Type.Literal('failed'), Type.Literal('stopped')]),
    entrypoint_rel_path: Type.Optional(Type.String()),
    env_vars: Type.Optional(Type.Record(Type.String(), Type.String())),
    source_checksum: Type.Optional(Type.String()),
    source_path: Type.Optional(Type.String()),
    source_type: Type.Optional(Type.Union([Type.Literal('file'), Type.Literal('github')])),
    status_reason: Type.Optional(Type.String()),
    updated_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: true },
);
export type Deployment = Static<typeof DeploymentSchema>;
export const DeploymentListSchema = Type.Array(DeploymentSchema);
export const LocalDeploymentSchema = Type.Object(
  {
    source_path: Type.String({ minLength: 1, maxLength: 4096 }),
    entrypoint_rel_path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    env_vars: Type.Optional(Type.Record(Type.String(), Type.String())),
    version: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    force: Type.Optional(Type.Boolean()),
    region: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export const DeploymentListQuerySchema = Type.Object({
  ...OffsetQuery,
  app_name: Type.Optional(Type.String({ maxLength: 255 })),
  app_version: Type.Optional(Type.String({ maxLength: 255 })),
  query: Type.Optional(Type.String({ maxLength: 255 })),
});

const InvocationStatus = Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]);
const ActionName = Type.String({ minLength: 1, maxLength: 255 });
export const InvocationSchema = Type.Object({
  id: Type.String(),
  action_name: Type.String(),
  app_name: Type.String(),
  version: Type.String(),
  started_at: Type.String(),
  status: InvocationStatus,
  finished_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  output: Type.Optional(Type.String()),
  payload: Type.Optional(Type.String()),
  status_reason: Type.Optional(Type.String()),
  /**
   * The detail (`GET /invocations/{id}`) only, an engine field: every browser session the
   * invocation used, ended ones too, oldest first — their replays, telemetry and HAR stay
   * reachable by these ids within the retention.
   */
  browser_session_ids: Type.Optional(Type.Array(Type.String())),
});
export type Invocation = Static<typeof InvocationSchema>;
export const InvocationListSchema = Type.Array(InvocationSchema);
/** Answer of `POST /invocations` (200 with the result, or 202 `queued` when async). */
export const InvocationCreatedSchema = Type.Object({
  id: Type.String(),
  action_name: Type.String(),
  status: InvocationStatus,
  output: Type.Optional(Type.String()),
  status_reason: Type.Optional(Type.String()),
});
export const InvocationCreateSchema = Type.Object({
  app_name: ActionName,
  action_name: ActionName,
  version: Type.Optional(Type.String({ maxLength: 255 })),
  payload: Type.Optional(Type.String({ maxLength: 1024 * 1024 })),
  async: Type.Optional(Type.Boolean()),
  async_timeout_seconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 3600 })),
});
export const InvocationUpdateSchema = Type.Object({
  status: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]),
  output: Type.Optional(Type.String({ maxLength: 4 * 1024 * 1024 })),
});
export const InvocationListQuerySchema = Type.Object({
  ...OffsetQuery,
  action_name: Type.Optional(Type.String({ maxLength: 255 })),
  app_name: Type.Optional(Type.String({ maxLength: 255 })),
  deployment_id: Type.Optional(Type.String({ maxLength: 255 })),
  query: Type.Optional(Type.String({ maxLength: 255 })),
  since: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(InvocationStatus),
  version: Type.Optional(Type.String({ maxLength: 255 })),
});
export const InvocationBrowsersSchema = Type.Object({ browsers: Type.Array(SessionSchema) });
