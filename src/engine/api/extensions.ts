/**
 * `/extensions` (wire reference §3.18): upload a zipped unpacked extension, list, get metadata,
 * download the zip as uploaded, delete, and fetch one from the Chrome Web Store; plus
 * `POST /browsers/{id}/extensions`, which unpacks uploaded zips into a running session and
 * restarts its Chromium with them. Uses `services.extensions` (ExtensionService),
 * which sessions and pools use to resolve and load their `extensions` option.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Feature } from '../feature.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { ApiError } from '../http/api-error.js';
import { sendAsFile } from '../http/tenant-bytes.js';
import { extensionDto, type Scope } from '../domain/extensions/extensions.js';
import { requireArchive } from '../domain/extensions/extension-service.js';
import { MAX_EXTENSION_ZIP_BYTES, readExtensionUpload, readSessionExtensionUploads } from '../domain/extensions/extension-uploads.js';
import { unpackExtension } from '../domain/extensions/extension-archive.js';
import { DEFAULT_CHROME_STORE_TIMEOUT_MS, DEFAULT_CHROME_STORE_URL, fetchFromChromeStore } from '../domain/extensions/chrome-store.js';
import { newId } from '../domain/ids.js';
import { assertDiskRoom } from '../domain/disk-reserve.js';
import { route } from '../route.js';

function scopeOf(req: Pick<FastifyRequest, 'auth'>): Scope {
  return { orgId: req.auth.orgId, projectId: req.auth.projectId };
}

function sendZip(reply: import('fastify').FastifyReply, body: Buffer | fs.ReadStream, filename: string) {
  return sendAsFile(reply, 'application/octet-stream', filename).send(body);
}

export const extensionsFeature: Feature<'extensions' | 'sessions'> = {
  name: 'extensions',
  async register(app, ctx, deps) {
    const { sessions } = deps;
    const extensions = deps.extensions.extensions;
    ctx.projects.addUsageCounter(async (projectId) => ({ what: 'extensions', count: await extensions.countInProject(projectId) }));

    await app.register(async (plugin) => {
      // A plugin scope starts without the app's type provider; the routes below need it.
      const scope = plugin.withTypeProvider<TypeBoxTypeProvider>();
      await scope.register(multipart, { limits: { fileSize: MAX_EXTENSION_ZIP_BYTES, files: 20, fields: 40, parts: 60 }, throwFileSizeLimit: true });

      route(scope, 'POST /extensions', async (req) => {
        await assertDiskRoom(ctx.config, 'an extension upload');
        const staging = await extensions.stagingFile();
        try {
          const { zip, name } = await readExtensionUpload(req, staging);
          return extensionDto(await extensions.create(scopeOf(req), zip, name));
        } finally {
          await fsp.rm(staging, { force: true });
        }
      });

      route(scope, 'POST /browsers/:id/extensions', async (req, reply) => {
        const handle = await sessions.require(req.auth, req.params.id);
        await assertDiskRoom(ctx.config, 'an extension upload');
        const staging = path.join(handle.extensionsDir, '.uploads', newId());
        try {
          const uploads = await readSessionExtensionUploads(req, staging);
          // All unpacked beside first, then swapped in: one bad zip changes nothing on disk.
          const unpacked: Array<{ fresh: string; loadDir: string; name: string }> = [];
          for (const [i, u] of uploads.entries()) {
            const fresh = path.join(staging, `unpacked-${u.name}`);
            unpacked.push({ fresh, name: u.name, loadDir: await unpackExtension(u.zipFile, fresh, `extensions[${i}][zip_file]`) });
          }
          const dirs: string[] = [];
          for (const u of unpacked) {
            const target = path.join(handle.extensionsDir, 'loaded', u.name);
            await fsp.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
            await fsp.rm(target, { recursive: true, force: true });
            await fsp.rename(u.fresh, target);
            dirs.push(path.join(target, path.relative(u.fresh, u.loadDir)));
          }
          await handle.loadExtensions(dirs).catch((err: Error) => {
            throw new ApiError(422, 'extension_load_failed', `the browser could not be restarted with the extensions: ${err.message}`);
          });
          return reply.status(204).send();
        } finally {
          await fsp.rm(staging, { recursive: true, force: true });
        }
      });
    });

    route(app, 'GET /extensions', async (req, reply) => {
      const q = req.query;
      const page = pageOf(q);
      const rows = await extensions.list(scopeOf(req), { ...page, name: q.name, query: q.query });
      return sendPage(reply, rows, page).map(extensionDto);
    });

    // The literal route shares the shape of /extensions/{id_or_name}; Fastify prefers static segments.
    route(app, 'GET /extensions/from_chrome_store', async (req, reply) => {
      const q = req.query;
      const { id, zip } = await fetchFromChromeStore({
        base: ctx.config.chromeStoreUrl ?? DEFAULT_CHROME_STORE_URL,
        timeoutMs: ctx.config.chromeStoreTimeoutMs ?? DEFAULT_CHROME_STORE_TIMEOUT_MS,
        url: q.url,
        os: q.os ?? 'linux',
      });
      return sendZip(reply, zip, `${id}.zip`);
    });

    route(app, 'GET /extensions/:id_or_name', async (req, reply) => {
      const r = await extensions.get(scopeOf(req), req.params.id_or_name);
      const file = extensions.zipPath(r.id);
      // Checked and opened before answering, so a zip missing on disk is a clear 503 rather than a broken stream.
      await requireArchive(extensions, r);
      const fd = await fsp.open(file, 'r');
      return sendZip(reply, fs.createReadStream(file, { fd }), `${r.name ?? r.id}.zip`);
    });

    route(app, 'GET /extensions/:id_or_name/metadata', async (req) => extensionDto(await extensions.get(scopeOf(req), req.params.id_or_name)));

    route(app, 'DELETE /extensions/:id_or_name', async (req, reply) => {
      await extensions.delete(scopeOf(req), req.params.id_or_name);
      return reply.status(204).send();
    });
  },
};
