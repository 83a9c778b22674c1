/**
 * `/browsers/{id}/fs/*` (wire §3.8, §3.9): the session's own filesystem. Routes only validate,
 * find the session through `ctx.services.sessions` (bearer key or the session's JWT alike) and
 * call `runtime/session-fs`, where every path is walked by handles inside the session root. Bodies and
 * downloads are streamed. Watches end when their session ends.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { Readable } from 'node:stream';
import type { Feature } from '../feature.js';
import type { EngineContext } from '../context.js';
import { ApiError } from '../http/api-error.js';
import { openSse } from '../http/sse.js';
import type { SessionHandle, SessionRegistry } from '../runtime/session/session-handle.js';
import * as files from '../runtime/session-fs/session-files.js';
import { parseOctalMode } from '../runtime/session-fs/file-info.js';
import { zipDirectory } from '../runtime/session-fs/zip-directory.js';
import { handleUpload, handleUploadZip } from '../runtime/session-fs/multipart-upload.js';
import { FsWatches } from '../runtime/session-fs/fs-watches.js';

const IdParam = Type.Object({ id: Type.String({ minLength: 1 }) });
const PathQuery = Type.Object({ path: Type.String({ description: 'absolute path inside the session filesystem' }) });
const PathBody = Type.Object({ path: Type.String() });
const ModeString = Type.String({ description: 'octal permission bits, e.g. "644"' });
const FileInfoSchema = Type.Object({
  name: Type.String(),
  path: Type.String(),
  is_dir: Type.Boolean(),
  mode: Type.String(),
  mod_time: Type.String({ format: 'date-time' }),
  size_bytes: Type.Integer(),
});

/** The running session named by `:id`, as the caller may see it (404 otherwise). */
export async function requireSession(ctx: EngineContext, request: FastifyRequest): Promise<SessionHandle> {
  const sessions = ctx.services.sessions as SessionRegistry | undefined;
  const id = (request.params as { id: string }).id;
  if (!sessions) throw ApiError.notFound('browser session', id);
  return sessions.require(request.auth, id);
}

function modeOf(value: string | undefined, fallback: number): number {
  const mode = parseOctalMode(value, fallback);
  if (mode === undefined) throw ApiError.invalidField('mode', 'must be an octal permission string such as "644"');
  // A setuid/setgid file made by the engine (root on a server) would be an escalation waiting
  // for anything that runs it outside the session's user namespace.
  if (mode & 0o6000) throw ApiError.invalidField('mode', 'setuid and setgid bits (4000, 2000) are not allowed');
  return mode;
}

const noContent = (reply: FastifyReply) => reply.status(204).send();

export const sessionFsFeature: Feature = {
  name: 'session-fs',
  async register(app: FastifyInstance, ctx) {
    const watches = new FsWatches();
    const hooked = new WeakSet<SessionHandle>();
    ctx.onStop(() => watches.stopAll());
    const session = async (req: FastifyRequest): Promise<SessionHandle> => {
      const handle = await requireSession(ctx, req);
      if (!hooked.has(handle)) {
        hooked.add(handle);
        handle.onEnd(() => watches.stopSession(handle.id));
      }
      return handle;
    };
    const tags = ['browser fs'];
    const base = '/browsers/:id/fs';

    app.get(`${base}/read_file`, { schema: { tags, params: IdParam, querystring: PathQuery } }, async (req, reply) => {
      const s = await session(req);
      const { stream, size } = await files.openFileForRead(s.dirs.root, (req.query as { path: string }).path);
      return reply.header('content-type', 'application/octet-stream').header('content-length', String(size)).send(stream);
    });

    app.put(
      `${base}/write_file`,
      { schema: { tags, params: IdParam, querystring: Type.Object({ path: Type.String(), mode: Type.Optional(ModeString) }) } },
      async (req, reply) => {
        const s = await session(req);
        const q = req.query as { path: string; mode?: string };
        const mode = modeOf(q.mode, 0o644);
        const body = req.body as Readable | Buffer | string | undefined | Record<string, unknown>;
        if (body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body) && typeof (body as Readable).pipe !== 'function') {
          throw new ApiError(415, 'unsupported_media_type', 'write_file takes the raw file bytes (Content-Type: application/octet-stream)');
        }
        await files.writeFileFromStream(s.dirs.root, q.path, body as Readable | Buffer | string | undefined, mode, q.mode !== undefined);
        return noContent(reply);
      },
    );

    app.put(`${base}/create_directory`, { schema: { tags, params: IdParam, body: Type.Object({ path: Type.String(), mode: Type.Optional(ModeString) }) } }, async (req, reply) => {
      const s = await session(req);
      const b = req.body as { path: string; mode?: string };
      await files.createDirectory(s.dirs.root, b.path, modeOf(b.mode, 0o755));
      return noContent(reply);
    });

    app.put(`${base}/delete_directory`, { schema: { tags, params: IdParam, body: PathBody } }, async (req, reply) => {
      await files.deleteDirectory((await session(req)).dirs.root, (req.body as { path: string }).path);
      return noContent(reply);
    });

    app.put(`${base}/delete_file`, { schema: { tags, params: IdParam, body: PathBody } }, async (req, reply) => {
      await files.deleteFile((await session(req)).dirs.root, (req.body as { path: string }).path);
      return noContent(reply);
    });

    app.get(`${base}/list_files`, { schema: { tags, params: IdParam, querystring: PathQuery, response: { 200: Type.Array(FileInfoSchema) } } }, async (req) =>
      files.listFiles((await session(req)).dirs.root, (req.query as { path: string }).path),
    );

    app.get(`${base}/file_info`, { schema: { tags, params: IdParam, querystring: PathQuery, response: { 200: FileInfoSchema } } }, async (req) =>
      files.fileInfo((await session(req)).dirs.root, (req.query as { path: string }).path),
    );

    app.put(`${base}/move`, { schema: { tags, params: IdParam, body: Type.Object({ src_path: Type.String(), dest_path: Type.String() }) } }, async (req, reply) => {
      const b = req.body as { src_path: string; dest_path: string };
      await files.movePath((await session(req)).dirs.root, b.src_path, b.dest_path);
      return noContent(reply);
    });

    app.put(
      `${base}/set_file_permissions`,
      { schema: { tags, params: IdParam, body: Type.Object({ path: Type.String(), mode: ModeString, owner: Type.Optional(Type.String()), group: Type.Optional(Type.String()) }) } },
      async (req, reply) => {
        const b = req.body as { path: string; mode: string; owner?: string; group?: string };
        const mode = modeOf(b.mode, 0o644);
        await files.setPermissions((await session(req)).dirs.root, b.path, mode, b.owner || undefined, b.group || undefined);
        return noContent(reply);
      },
    );

    app.get(`${base}/download_dir_zip`, { schema: { tags, params: IdParam, querystring: PathQuery } }, async (req, reply) => {
      const stream = await zipDirectory((await session(req)).dirs.root, (req.query as { path: string }).path);
      return reply.header('content-type', 'application/zip').send(stream);
    });

    // Multipart parsing lives in its own scope so it only applies to the two upload routes.
    await app.register(async (scope) => {
      await scope.register(multipart, { limits: { fileSize: Infinity, files: 1000, fields: 2000, parts: 3000 }, throwFileSizeLimit: true });
      scope.post(`${base}/upload`, { schema: { tags, params: IdParam, consumes: ['multipart/form-data'] } }, async (req, reply) => {
        const s = await session(req);
        await handleUpload(req, s.dirs.root, s.dirs.tmp);
        return noContent(reply);
      });
      scope.post(`${base}/upload_zip`, { schema: { tags, params: IdParam, consumes: ['multipart/form-data'] } }, async (req, reply) => {
        const s = await session(req);
        await handleUploadZip(req, s.dirs.root, s.dirs.tmp);
        return noContent(reply);
      });
    });

    app.post(`${base}/watch`, { schema: { tags, params: IdParam, body: Type.Object({ path: Type.String(), recursive: Type.Optional(Type.Boolean()) }) } }, async (req) => {
      const s = await session(req);
      const b = req.body as { path: string; recursive?: boolean };
      const dir = await files.requireDirectory(s.dirs.root, b.path);
      const w = await watches.start(s.id, s.dirs.root, dir, b.recursive ?? false);
      return { watch_id: w.id };
    });

    const WatchParams = Type.Object({ id: Type.String({ minLength: 1 }), watch_id: Type.String({ minLength: 1 }) });
    app.get(`${base}/watch/:watch_id/events`, { schema: { tags, params: WatchParams } }, async (req, reply) => {
      const s = await session(req);
      const w = watches.get(s.id, (req.params as { watch_id: string }).watch_id);
      if (!w) throw ApiError.notFound('watch', (req.params as { watch_id: string }).watch_id);
      const release = s.holdActive();
      const sse = openSse(reply);
      const unsubscribe = w.subscribe(
        (e) => sse.send(e),
        () => sse.close(),
      );
      sse.onClose(() => {
        unsubscribe();
        release();
      });
    });

    app.delete(`${base}/watch/:watch_id`, { schema: { tags, params: WatchParams } }, async (req, reply) => {
      const s = await session(req);
      const id = (req.params as { watch_id: string }).watch_id;
      if (!watches.get(s.id, id)) throw ApiError.notFound('watch', id);
      watches.stop(id);
      return noContent(reply);
    });
  },
};
