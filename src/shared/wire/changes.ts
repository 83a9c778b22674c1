/**
 * The change feed (`GET /changes`, a Browserdeck extension outside Kernel's API): one SSE frame
 * per resource created, changed or removed through any client, so consoles update without
 * polling. `data` is left out: a console refetches what it shows, scoped as its own API calls.
 * A `hello` frame opens every stream, so a reader knows it is connected (and refetches once);
 * `heartbeat` frames keep idle connections open through proxies.
 */
import { Type, type Static } from '@sinclair/typebox';

export const CHANGE_RESOURCES = [
  'session',
  'pool',
  'profile',
  'proxy',
  'extension',
  'invocation',
  'deployment',
  'api_key',
  'project',
  'org_limits',
  'credential',
  'credential_provider',
  'auth_connection',
  'telemetry_destination',
] as const;

export const ChangeResourceSchema = Type.Union(CHANGE_RESOURCES.map((r) => Type.Literal(r)));
export type ChangeResource = Static<typeof ChangeResourceSchema>;

export const ChangeEventSchema = Type.Object({
  type: Type.Union([Type.Literal('upsert'), Type.Literal('delete')]),
  resource: ChangeResourceSchema,
  id: Type.String(),
  /** The project the resource belongs to; absent for org-level resources (projects, org keys, limits). */
  project_id: Type.Optional(Type.String()),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type ChangeEvent = Static<typeof ChangeEventSchema>;

export const ChangeFrameSchema = Type.Union([
  Type.Object({ type: Type.Literal('hello') }),
  Type.Object({ type: Type.Literal('heartbeat') }),
  ChangeEventSchema,
]);
export type ChangeFrame = Static<typeof ChangeFrameSchema>;
