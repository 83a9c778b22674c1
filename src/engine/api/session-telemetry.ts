/**
 * Telemetry of a session (wire §3.14, §5.1): `GET /browsers/{id}/telemetry/stream` (SSE, `id:`
 * = seq, JSON envelopes, never an `event:` field, comment keepalive when idle, `replay=all`,
 * `Last-Event-ID` resume, closed when the session ends) and `GET /browsers/{id}/telemetry/events`
 * (paged reads of the retained buffer, `category` and `type` filters). Its producers are
 * installed by api/browsers.ts (they run on the sessions' routes): a collector per session from
 * its start, and `api_call` / `platform_api_call` for every API call on a session's routes
 * (session-api-calls.ts).
 */
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { openSse } from '../http/sse.js';
import { queryEvents } from '../runtime/telemetry/event-query.js';
import type { TelemetryEnvelope } from '../runtime/telemetry/telemetry-event.js';
import { route } from '../route.js';

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

      route(app, 'GET /browsers/:id/telemetry/stream', async (req, reply) => {
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

      route(app, 'GET /browsers/:id/telemetry/events', async (req, reply) => {
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

export const sessionTelemetryFeature = createTelemetryFeature();
