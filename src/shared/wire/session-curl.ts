/**
 * Wire schemas of HTTP through a session's browser (wire §3.6, §2.2): `POST /browsers/{id}/curl`
 * and the raw `{base_url}/curl/raw?url=…` of the official client's `browsers.fetch`.
 */
import { Type, type Static } from '@sinclair/typebox';

export const MAX_CURL_BODY = 50 * 1024 * 1024;
const MAX_TIMEOUT_MS = 600_000;
export const CURL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const Timeout = Type.Integer({ minimum: 1, maximum: MAX_TIMEOUT_MS });
export const CurlRequestSchema = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 16_384 }),
  method: Type.Optional(Type.Union(CURL_METHODS.map((m) => Type.Literal(m)))),
  headers: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 256 }), Type.String({ maxLength: 65_536 }))),
  body: Type.Optional(Type.String({ maxLength: MAX_CURL_BODY })),
  response_encoding: Type.Optional(Type.Union([Type.Literal('utf8'), Type.Literal('base64')])),
  timeout_ms: Type.Optional(Timeout),
});
export const CurlResultSchema = Type.Object({
  status: Type.Integer(),
  headers: Type.Record(Type.String(), Type.Array(Type.String())),
  body: Type.String(),
  duration_ms: Type.Integer(),
});
export type CurlResult = Static<typeof CurlResultSchema>;
export const CurlRawQuerySchema = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 16_384 }),
  jwt: Type.Optional(Type.String()),
  timeout_ms: Type.Optional(Timeout),
});
