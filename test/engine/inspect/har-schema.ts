/**
 * The required fields of HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) as a TypeBox
 * schema, to check an exported document the way a HAR viewer reads it.
 */
import { Type } from '@sinclair/typebox';

const NameValue = Type.Object({ name: Type.String(), value: Type.String() });
const Timings = Type.Object({
  blocked: Type.Optional(Type.Number({ minimum: -1 })),
  dns: Type.Optional(Type.Number({ minimum: -1 })),
  connect: Type.Optional(Type.Number({ minimum: -1 })),
  ssl: Type.Optional(Type.Number({ minimum: -1 })),
  send: Type.Number({ minimum: 0 }),
  wait: Type.Number({ minimum: 0 }),
  receive: Type.Number({ minimum: 0 }),
});
const Entry = Type.Object({
  pageref: Type.Optional(Type.String()),
  startedDateTime: Type.String({ pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?(Z|[+-]\\d\\d:\\d\\d)$' }),
  time: Type.Number({ minimum: 0 }),
  request: Type.Object({
    method: Type.String({ minLength: 1 }),
    url: Type.String({ minLength: 1 }),
    httpVersion: Type.String(),
    cookies: Type.Array(Type.Object({ name: Type.String(), value: Type.String() })),
    headers: Type.Array(NameValue),
    queryString: Type.Array(NameValue),
    postData: Type.Optional(Type.Object({ mimeType: Type.String(), text: Type.String() })),
    headersSize: Type.Number(),
    bodySize: Type.Number(),
  }),
  response: Type.Object({
    status: Type.Integer({ minimum: 0 }),
    statusText: Type.String(),
    httpVersion: Type.String(),
    cookies: Type.Array(Type.Object({ name: Type.String(), value: Type.String() })),
    headers: Type.Array(NameValue),
    content: Type.Object({ size: Type.Number(), mimeType: Type.String(), text: Type.Optional(Type.String()) }),
    redirectURL: Type.String(),
    headersSize: Type.Number(),
    bodySize: Type.Number(),
  }),
  cache: Type.Object({}),
  timings: Timings,
});

export const Har12 = Type.Object({
  log: Type.Object({
    version: Type.Literal('1.2'),
    creator: Type.Object({ name: Type.String(), version: Type.String() }),
    pages: Type.Optional(Type.Array(Type.Object({ startedDateTime: Type.String(), id: Type.String(), title: Type.String(), pageTimings: Type.Object({}) }))),
    entries: Type.Array(Entry),
    comment: Type.Optional(Type.String()),
  }),
});
