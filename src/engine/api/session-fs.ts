/**
 * `/browsers/{id}/fs/*` (wire §3.8, §3.9): the session's own filesystem. Routes only validate,
 * find the session through the session registry (bearer key or the session's JWT alike) and
 * call `runtime/session-fs`, where every path is walked by handles inside the session root. Bodies and
 * downloads are streamed. Watches end when their session ends.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import type { Readable } from 'node:stream';
import type { Feature } from '../feature.js';
import { ApiError } from '../http/api-error.js';
import { sendAsFile } from '../http/tenant-bytes.js';
import { openSse } from '../http/sse.js';
import type { SessionHandle, SessionRegistry } from '../runtime/session/session-handle.js';
import * as files from '../runtime/session-fs/session-files.js';
import { parseOctalMode } from '../runtime/session-fs/file-info.js';
import { zipDirectory } from '../runtime/session-fs/zip-directory.js';
import { handleUpload, handleUploadZip } from '../runtime/session-fs/multipart-upload.js';
import { FsWatches } from '../runtime/session-fs/fs-watches.js';
import { usableBwrap } from '../runtime/sandbox/bwrap.js';
import { assertDiskRoom } from '../domain/disk-reserve.js';
import { route } from '../route.js';

/** A request to a route under `/browsers/:id`. */
export type SessionRequest = Pick<FastifyRequest, 'auth'> & { params: { id: string } };

/** The running session named by `:id`, as the caller may see it (404 otherwise). */
export async function requireSession(sessions: SessionRegistry, request: SessionRequest): Promise<SessionHandle> {
  return sessions.require(request.auth, request.params.id);
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

/** write_file takes the raw bytes: a stream (octet-stream), or a buffer or string some parsers give. */
function rawFileBody(body: unknown): Readable | Buffer | string | undefined {
  if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) return body;
  if (typeof body === 'object' && body !== null && 'pipe' in body && typeof body.pipe === 'function') return body as Readable;
  throw new ApiError(415, 'unsupported_media_type', 'write_file takes the raw file bytes (Content-Type: application/octet-stream)');
}

/** The last component of a client path, for a download's name. */
const baseName = (p: string, fallback: string): string => p.split('/').filter(Boolean).pop() ?? fallback;

export const sessionFsFeature: Feature<'sessions' | 'serviceLogs'> = {
  name: 'session-fs',
  async register(app, ctx, { sessions, serviceLogs }) {
    // Watches run in a watcher process of each session, jailed wherever session processes are.
    const watches = new FsWatches({
      budget: ctx.config.fsWatchMaxDirs,
      hide: [ctx.config.dataDir],
      bwrap: await usableBwrap(),
      log: (sessionId, line) => serviceLogs.append(sessionId, 'session', line),
    });
    const hooked = new WeakSet<SessionHandle>();
    ctx.onStop(() => watches.stopAll());
    const session = async (req: SessionRequest): Promise<SessionHandle> => {
      const handle = await requireSession(sessions, req);
      if (!hooked.has(handle)) {
        hooked.add(handle);
        handle.scope.defer('fs watches', () => watches.stopSession(handle.id));
      }
      return handle;
    };

    route(app, 'GET /browsers/:id/fs/read_file', async (req, reply) => {
      const s = await session(req);
      const { stream, size } = await files.openFileForRead(s.dirs.root, req.query.path);
      // Any file of the session: a download, never a page on the engine's origin.
      return sendAsFile(reply, 'application/octet-stream', baseName(req.query.path, 'file')).header('content-length', String(size)).send(stream);
    });

    route(app, 'PUT /browsers/:id/fs/write_file', async (req, reply) => {
      const s = await session(req);
      const q = req.query;
      const mode = modeOf(q.mode, 0o644);
      const body = rawFileBody(req.body);
      await files.writeFileFromStream(s.dirs.root, q.path, body, mode, q.mode !== undefined);
      return noContent(reply);
    });

    route(app, 'PUT /browsers/:id/fs/create_directory', async (req, reply) => {
      const s = await session(req);
      const b = req.body;
      await files.createDirectory(s.dirs.root, b.path, modeOf(b.mode, 0o755));
      return noContent(reply);
    });

    route(app, 'PUT /browsers/:id/fs/delete_directory', async (req, reply) => {
      await files.deleteDirectory((await session(req)).dirs.root, req.body.path);
      return noContent(reply);
    });

    route(app, 'PUT /browsers/:id/fs/delete_file', async (req, reply) => {
      await files.deleteFile((await session(req)).dirs.root, req.body.path);
      return noContent(reply);
    });

    route(app, 'GET /browsers/:id/fs/list_files', async (req) => files.listFiles((await session(req)).dirs.root, req.query.path));

    route(app, 'GET /browsers/:id/fs/file_info', async (req) => files.fileInfo((await session(req)).dirs.root, req.query.path));

    route(app, 'PUT /browsers/:id/fs/move', async (req, reply) => {
      const b = req.body;
      await files.movePath((await session(req)).dirs.root, b.src_path, b.dest_path);
      return noContent(reply);
    });

    route(app, 'PUT /browsers/:id/fs/set_file_permissions', async (req, reply) => {
      const b = req.body;
      const mode = modeOf(b.mode, 0o644);
      await files.setPermissions((await session(req)).dirs.root, b.path, mode, b.owner || undefined, b.group || undefined);
      return noContent(reply);
    });

    route(app, 'GET /browsers/:id/fs/download_dir_zip', async (req, reply) => {
      const stream = await zipDirectory((await session(req)).dirs.root, req.query.path);
      return sendAsFile(reply, 'application/zip', `${baseName(req.query.path, 'files')}.zip`).send(stream);
    });

    // Multipart parsing lives in its own scope so it only applies to the two upload routes.
    await app.register(async (plugin) => {
      // A plugin scope starts without the app's type provider; the routes below need it.
      const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
      await scope.register(multipart, { limits: { fileSize: Infinity, files: 1000, fields: 2000, parts: 3000 }, throwFileSizeLimit: true });
      route(scope, 'POST /browsers/:id/fs/upload', async (req, reply) => {
        const s = await session(req);
        await assertDiskRoom(ctx.config, 'an upload');
        await handleUpload(req, s.dirs.root, s.dirs.tmp);
        return noContent(reply);
      });
      route(scope, 'POST /browsers/:id/fs/upload_zip', async (req, reply) => {
        const s = await session(req);
        await assertDiskRoom(ctx.config, 'an upload');
        await handleUploadZip(req, s.dirs.root, s.dirs.tmp);
        return noContent(reply);
      });
    });

    route(app, 'POST /browsers/:id/fs/watch', async (req) => {
      const s = await session(req);
      const b = req.body;
      const dir = await files.requireDirectory(s.dirs.root, b.path);
      const w = await watches.start(s, dir, b.recursive ?? false);
      return { watch_id: w.id };
    });

    route(app, 'GET /browsers/:id/fs/watch/:watch_id/events', async (req, reply) => {
      const s = await session(req);
      const w = watches.get(s.id, req.params.watch_id);
      if (!w) throw ApiError.notFound('watch', req.params.watch_id);
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

    route(app, 'DELETE /browsers/:id/fs/watch/:watch_id', async (req, reply) => {
      const s = await session(req);
      const id = req.params.watch_id;
      if (!watches.get(s.id, id)) throw ApiError.notFound('watch', id);
      watches.stop(id);
      return noContent(reply);
    });
  },
};
