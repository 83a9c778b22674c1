/**
 * Telemetry of a session (wire §3.14, §5.1): `GET /browsers/{id}/telemetry/stream` (SSE, `id:`
 * = seq, JSON envelopes, never an `event:` field, comment keepalive when idle, `replay=all`,
 * `Last-Event-ID` resume, closed when the session ends) and `GET /browsers/{id}/telemetry/events`
 * (paged reads of the retained buffer). Its producers are installed by api/browsers.ts (they
 * run on the sessions' routes): a collector per session from its start, and `control/api_call`
 * for every API call on a session's routes (`recordApiCalls` below).
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { openSse } from '../http/sse.js';
import type { TelemetryService } from '../runtime/telemetry/telemetry-service.js';
import { queryEvents } from '../runtime/telemetry/event-query.js';
import type { TelemetryEnvelope } from '../runtime/telemetry/telemetry-event.js';
import { stringField } from '../../shared/string-field.js';
import {
  TelemetryEventsQuerySchema as EventsQuery,
  TelemetrySessionParamSchema as IdParam,
  TelemetryStreamQuerySchema as StreamQuery,
} from '../../shared/wire/session-telemetry.js';

/** Sub-routes whose calls are not recorded as api_call (reading telemetry must not feed it). */
const NOT_RECORDED = /^\/browsers\/:id\/(telemetry\/|live($|\/))/;

export interface TelemetryFeatureOptions {
  keepaliveMs?: number;
}

/**
 * Builds the feature; tests pass a short keepalive. The default reads `BROWSERDECK_TELEMETRY_KEEPALIVE_MS`
 * (the buffer's `BROWSERDECK_TELEMETRY_*` are read where the service is built, compose.ts).
 */
export function createTelemetryFeature(o: TelemetryFeatureOptions = {}): Feature<'sessions' | 'telemetry'> {
  return {
    name: 'session-telemetry',
    register(app, ctx, { sessions, telemetry: service }) {
      const env = ctx.config.env;
      const num = (v: string | undefined, d: number) => (v && Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : d);
      const keepaliveMs = o.keepaliveMs ?? num(env.BROWSERDECK_TELEMETRY_KEEPALIVE_MS, 15_000);
      ctx.onStop(() => service.stop());

      const tags = ['browser telemetry'];
      app.get('/browsers/:id/telemetry/stream', { schema: { tags, params: IdParam, querystring: StreamQuery } }, async (req, reply) => {
        const handle = await sessions.require(req.auth, req.params.id);
        const tel = service.get(handle.id) ?? service.attach(handle);
        const header = req.headers['last-event-id'];
        let after: number | undefined;
        if (header !== undefined && String(header).trim() !== '') {
          const v = String(header).trim();
          if (!/^\d{1,15}$/.test(v)) throw ApiError.invalidField('Last-Event-ID', 'must be a non-negative integer sequence number');
          after = Number(v);
        } else if (req.query.replay === 'all') {
          after = 0;
        }
        const sse = openSse(reply, { keepaliveMs });
        const sub = tel.buffer.subscribe((e) => sse.send({ seq: e.seq, event: e.item } satisfies TelemetryEnvelope, e.seq), { after, end: () => sse.close() });
        sse.onClose(() => sub.unsubscribe());
      });

      app.get('/browsers/:id/telemetry/events', { schema: { tags, params: IdParam, querystring: EventsQuery } }, async (req, reply) => {
        const id = req.params.id;
        const q = req.query;
        const running = await sessions.require(req.auth, id).catch((err) => err as Error);
        let envelopes: TelemetryEnvelope[] = [];
        if (running instanceof Error) {
          // An ended session: its retained events while they last, else an empty list.
          if (!(running instanceof ApiError) || running.status !== 404 || !(await sessions.exists(req.auth, id))) throw running;
          envelopes = service.get(id)?.envelopes() ?? [];
        } else {
          envelopes = (service.get(running.id) ?? service.attach(running)).envelopes();
        }
        const page = queryEvents(envelopes, { ...q, limit: q.limit ?? 100 }, ctx.clock.now().getTime());
        reply.header('X-Has-More', page.hasMore ? 'true' : 'false');
        reply.header('X-Next-Offset', String(page.nextOffset));
        return page.items;
      });
    },
  };
}

/**
 * An onResponse hook: every API call on a session's routes (`/browsers/:id…`, bar reading its
 * telemetry or live view) becomes a `control/api_call` event of that session. Runs for every
 * request of the engine: callback style, so routes outside a session cost no promise.
 */
export function recordApiCalls(telemetry: TelemetryService): (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  return (req, reply, done) => {
    const route = req.routeOptions?.url;
    const id = route && route.startsWith('/browsers/:id') && !NOT_RECORDED.test(route) ? stringField(req.params, 'id') : undefined;
    if (id) {
      telemetry.emit(id, 'control', 'api_call', {
        source: { kind: 'kernel_api', event: `${req.method} ${route}` },
        data: {
          duration_ms: Math.round(reply.elapsedTime * 100) / 100,
          operation_id: operationId(req),
          request_id: String(req.id),
          status: reply.statusCode,
        },
      });
    }
    done();
  };
}

/** The route's operationId when its schema names one, else `METHOD /route/pattern`. */
function operationId(req: FastifyRequest): string {
  const schema = req.routeOptions?.schema as { operationId?: string } | undefined;
  return schema?.operationId ?? `${req.method} ${req.routeOptions?.url ?? ''}`;
}

export const sessionTelemetryFeature = createTelemetryFeature();
