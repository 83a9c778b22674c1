/**
 * Wire schemas of the inspection routes of a session (issue 17): the DevTools frontend on one
 * tab (`GET /browsers/{id}/devtools`), its token-addressed assets, the HAR export, and the
 * Playwright trace viewer. Session-JWT callers pass `?jwt=`.
 */
import { Type, type Static } from '@sinclair/typebox';

/** `?target=<targetId>[&mode=read][&format=json]`: without `format=json` the answer is a redirect to the frontend. */
export const DevtoolsOpenQuerySchema = Type.Object({
  target: Type.String({ minLength: 1, maxLength: 128 }),
  mode: Type.Optional(Type.Union([Type.Literal('full'), Type.Literal('read')])),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('redirect')])),
  jwt: Type.Optional(Type.String()),
});

/** Where the frontend of one tab is, for clients that open it themselves (the console, the desktop app). */
export const DevtoolsLinkSchema = Type.Object({
  url: Type.String(),
  target_id: Type.String(),
  mode: Type.Union([Type.Literal('full'), Type.Literal('read')]),
  expires_at: Type.String(),
});
export type DevtoolsLink = Static<typeof DevtoolsLinkSchema>;

/** `/devtools-frontend/{token}/{asset path}`: the token names the session, tab and mode. */
export const FrontendAssetParamsSchema = Type.Object({ token: Type.String({ minLength: 1, maxLength: 2048 }), '*': Type.String({ maxLength: 512 }) });

/** `GET /browsers/{id}/har[?bodies=true&max_body_bytes=n]`: request and kept response bodies are included on request, each capped (UTF-8 bytes). */
export const HarQuerySchema = Type.Object({
  bodies: Type.Optional(Type.Boolean()),
  max_body_bytes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1024 * 1024 })),
  jwt: Type.Optional(Type.String()),
});

/** `GET /browsers/{id}/trace?path=<trace zip in the session's files>[&format=json]`: opens it in the trace viewer. */
export const TraceOpenQuerySchema = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 4096 }),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('redirect')])),
  jwt: Type.Optional(Type.String()),
});
export const TraceLinkSchema = Type.Object({ url: Type.String(), path: Type.String(), expires_at: Type.String() });
export type TraceLink = Static<typeof TraceLinkSchema>;
/** `/trace-viewer/{token}/{file}`: the viewer's files, and `trace.zip`, the one trace the token names. */
export const TraceViewerParamsSchema = Type.Object({ token: Type.String({ minLength: 1, maxLength: 4096 }), '*': Type.String({ maxLength: 512 }) });
