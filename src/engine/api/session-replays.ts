/**
 * Replays of a session (wire §3.13): `POST /browsers/{id}/replays` (start), `GET …/replays`
 * (list), `POST …/{replay_id}/stop` (idempotent), `GET …/{replay_id}` (the MP4 with HTTP
 * ranges; 202 + Retry-After while it is being finished) and `GET …/{replay_id}/view` (the
 * player page `replay_view_url` points at). Recordings of an ended session stay readable
 * until their retention runs out.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import type { ReplayTable } from '../store/schema.js';
import { sessionUrls } from '../domain/sessions/session-record.js';
import { resolveRange } from '../domain/replays/byte-range.js';
import { replayPlayerHtml } from '../domain/replays/replay-player.js';
import { assertDiskRoom } from '../domain/disk-reserve.js';
import { route } from '../route.js';

/** A request to a route under `/browsers/:id` (and `/replays/:replay_id`). */
type SessionRequest = Pick<FastifyRequest, 'auth'> & { params: { id: string } };
type ReplayRequest = Pick<FastifyRequest, 'auth'> & { params: { id: string; replay_id: string } };

export function createReplaysFeature(): Feature<'sessions' | 'replays'> {
  return {
    name: 'session-replays',
    register(app, ctx, { sessions, replays: service }) {
      ctx.onStop(() => service.stopAll());

      async function info(row: ReplayTable) {
        const token = await sessions.jwt.sign(
          { sessionId: row.session_id, orgId: row.org_id, projectId: row.project_id },
          new Date(ctx.clock.now().getTime() + 24 * 3600_000),
        );
        const base = sessionUrls(ctx.publicUrl(), row.session_id, token).base_url;
        return {
          replay_id: row.id,
          started_at: row.started_at,
          finished_at: row.finished_at,
          replay_view_url: `${base}/replays/${encodeURIComponent(row.id)}/view?jwt=${encodeURIComponent(token)}`,
        };
      }

      /** The session id for this caller: running (by id or name) or ended with recordings kept. */
      async function sessionIdOf(req: SessionRequest): Promise<string> {
        const id = req.params.id;
        try {
          return (await sessions.require(req.auth, id)).id;
        } catch (err) {
          if (!(err instanceof ApiError) || err.status !== 404) throw err;
          if (req.auth.sessionId && req.auth.sessionId !== id) throw err;
          if (await sessions.exists(req.auth, id)) return id;
          throw err;
        }
      }

      async function rowOf(req: ReplayRequest): Promise<ReplayTable> {
        const sid = await sessionIdOf(req);
        const rid = req.params.replay_id;
        const row = await service.row(sid, rid, req.auth.orgId, req.auth.projectId);
        if (!row) throw ApiError.notFound('replay', rid);
        return row;
      }

      route(app, 'POST /browsers/:id/replays', async (req) => {
        const handle = await sessions.require(req.auth, req.params.id);
        // A recording grows in the data dir for as long as it runs.
        await assertDiskRoom(ctx.config, 'starting a replay');
        return info(await service.start(handle, req.body ?? {}));
      });

      route(app, 'GET /browsers/:id/replays', async (req) => {
        const sid = await sessionIdOf(req);
        return Promise.all((await service.rowsOf(sid, req.auth.orgId, req.auth.projectId)).map(info));
      });

      route(app, 'POST /browsers/:id/replays/:replay_id/stop', async (req, reply) => {
        await service.stop(await rowOf(req));
        return reply.status(204).send();
      });

      route(app, 'GET /browsers/:id/replays/:replay_id/view', { config: { enginePage: true } }, async (req, reply) => {
        const row = await rowOf(req);
        reply.header('content-type', 'text/html; charset=utf-8').header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
        reply.header(
          'content-security-policy',
          "default-src 'none'; media-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'",
        );
        return reply.send(replayPlayerHtml(row.session_id, row.id));
      });

      route(app, 'GET /browsers/:id/replays/:replay_id', async (req, reply) => sendReplay(req, reply, await rowOf(req)));

      async function sendReplay(req: FastifyRequest, reply: FastifyReply, row: ReplayTable) {
        const state = service.state(row.id) ?? row.status;
        if (state === 'recording' || state === 'finishing') {
          reply.status(202).header('retry-after', '1').header('x-should-retry', 'true');
          return {
            replay_id: row.id,
            status: state,
            message: state === 'recording' ? 'the replay is still recording; stop it first' : 'the replay is being finished; retry shortly',
          };
        }
        if (state === 'failed') throw ApiError.conflict(`replay '${row.id}' could not be recorded: ${row.error ?? 'unknown error'}`, 'replay_failed');
        const file = service.fileOf(row);
        const st = await fsp.stat(file).catch(() => undefined);
        if (!st) throw ApiError.notFound('replay', row.id);
        reply.header('accept-ranges', 'bytes').header('content-type', 'video/mp4').header('cache-control', 'private, max-age=0');
        reply.header('content-disposition', `inline; filename="replay-${row.id}.mp4"`);
        const range = resolveRange(req.headers.range, st.size);
        if (range.kind === 'unsatisfiable') {
          reply.status(416).header('content-range', `bytes */${st.size}`);
          throw new ApiError(416, 'range_not_satisfiable', `the requested range is not satisfiable (file size ${st.size} bytes)`);
        }
        if (range.kind === 'partial') {
          reply
            .status(206)
            .header('content-range', `bytes ${range.start}-${range.end}/${st.size}`)
            .header('content-length', String(range.end - range.start + 1));
          return reply.send(fs.createReadStream(file, { start: range.start, end: range.end }));
        }
        reply.header('content-length', String(st.size));
        return reply.send(fs.createReadStream(file));
      }
    },
    async started(_ctx, { replays }) {
      await replays.recover();
    },
  };
}

export const sessionReplaysFeature = createReplaysFeature();
