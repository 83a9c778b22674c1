/**
 * `/deployments` (wire reference §3.17): create from an uploaded zip (multipart, as the
 * official client sends it) or, for local development, `POST /deployments/local` from a
 * directory on the engine's machine (org-wide API keys only: it reads the engine host's
 * disk); get, list, delete, and the `events` SSE stream.
 */
import fsp from 'node:fs/promises';
import path from 'node:path';
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { App } from '../feature.js';
import type { EngineContext } from '../context.js';
import { ApiError } from '../http/api-error.js';
import { pageOf, sendPage } from '../http/pagination.js';
import { multipartError, saveFilePart } from '../runtime/uploads/multipart-files.js';
import { orgWideKeyFirst } from '../domain/org/access.js';
import { newId } from '../domain/ids.js';
import type { AppEventLog } from '../domain/apps/app-event-log.js';
import { heartbeat, streamAppEvents } from '../domain/apps/event-stream.js';
import { openSse } from '../http/sse.js';
import { parseSince } from '../domain/apps/since.js';
import { DEFAULT_VERSION } from '../domain/apps/app-versions.js';
import { deploymentDto, isTerminalDeployment, REGION } from '../domain/deployments/deployment-record.js';
import type { DeploymentInput, Deployments } from '../domain/deployments/deployments.js';
import { assertDiskRoom } from '../domain/disk-reserve.js';
import { route } from '../route.js';

/** Largest accepted upload (the zip itself; its unpacked size has its own bound). */
export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_ENV_VARS = 500;
const MAX_ENV_VALUE = 64 * 1024;

interface CommonFields {
  entrypoint?: string;
  envVars: Record<string, string>;
  version: string;
  force: boolean;
}

function checkVersion(v: string): string {
  if (v.length < 1 || v.length > 255) throw ApiError.invalidField('version', 'must be 1 to 255 characters');
  return v;
}

function checkRegion(v: string): void {
  // The only region of the hosted service; accepted for compatibility, everything runs here.
  if (v !== REGION) throw ApiError.invalidField('region', `must be '${REGION}' (the only region; deployments run on this engine)`);
}

function addEnv(env: Record<string, string>, name: string, value: string, field: string): void {
  if (!ENV_NAME.test(name)) throw ApiError.invalidField(field, 'names must match [A-Za-z_][A-Za-z0-9_]*');
  if (value.length > MAX_ENV_VALUE) throw ApiError.invalidField(field, `values are limited to ${MAX_ENV_VALUE} characters`);
  if (Object.keys(env).length >= MAX_ENV_VARS) throw ApiError.invalidField('env_vars', `at most ${MAX_ENV_VARS} variables`);
  env[name] = value;
}

function parseBool(v: string, field: string): boolean {
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw ApiError.invalidField(field, 'must be true or false');
}

/** Reads the multipart form, streaming `file` to `uploadPath` while hashing it. */
async function readForm(req: FastifyRequest, uploadPath: string): Promise<CommonFields & { checksum?: string }> {
  if (!req.isMultipart())
    throw new ApiError(
      415,
      'unsupported_media_type',
      'expected a multipart/form-data body with a zip in `file` (for a directory of the engine machine use POST /deployments/local)',
    );
  const out: CommonFields & { checksum?: string } = { envVars: {}, version: DEFAULT_VERSION, force: false };
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw ApiError.invalidField(part.fieldname, 'is not a known file field (expected file)');
        }
        if (out.checksum) throw ApiError.invalidField('file', 'must be given once');
        out.checksum = (await saveFilePart(part.file, uploadPath)).sha256;
        continue;
      }
      const value = String(part.value);
      const env = /^env_vars\[(.+)\]$/.exec(part.fieldname);
      if (env) addEnv(out.envVars, env[1], value, part.fieldname);
      else if (part.fieldname === 'entrypoint_rel_path') out.entrypoint = value;
      else if (part.fieldname === 'version') out.version = checkVersion(value);
      else if (part.fieldname === 'force') out.force = parseBool(value, 'force');
      else if (part.fieldname === 'region') checkRegion(value);
      else if (part.fieldname === 'source')
        throw ApiError.unprocessable(
          'deploying from a GitHub source is not supported by this engine (it works offline); upload a zip in `file` or use POST /deployments/local',
          'source_not_supported',
        );
      else throw ApiError.invalidField(part.fieldname, 'is not a known field');
    }
  } catch (err) {
    throw multipartError(err, `file is larger than ${MAX_UPLOAD_BYTES} bytes`);
  }
  if (!out.checksum) throw ApiError.invalidField('file', 'is required (a zip of the app directory)');
  return out;
}

export async function registerDeploymentRoutes(app: App, ctx: EngineContext, deployments: Deployments, events: AppEventLog): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: MAX_ENV_VARS + 20, parts: MAX_ENV_VARS + 21 },
      throwFileSizeLimit: true,
    });
    route(scope, 'POST /deployments', async (req) => {
      await assertDiskRoom(ctx.config, 'a deployment upload');
      const uploads = path.join(deployments.root, '.uploads');
      await fsp.mkdir(uploads, { recursive: true, mode: 0o700 });
      const upload = path.join(uploads, `${newId()}.zip`);
      try {
        const f = await readForm(req, upload);
        return await deployments.create(req.auth, {
          source: { kind: 'zip', file: upload, checksum: f.checksum! },
          entrypoint: f.entrypoint,
          envVars: f.envVars,
          version: f.version,
          force: f.force,
        });
      } finally {
        await fsp.rm(upload, { force: true });
      }
    });
  });

  route(app, 'POST /deployments/local', { onRequest: orgWideKeyFirst('deploying from a directory of the engine machine') }, async (req) => {
    const b = req.body;
    if (b.region !== undefined) checkRegion(b.region);
    if (!path.isAbsolute(b.source_path)) throw ApiError.invalidField('source_path', 'must be an absolute path on the engine machine');
    const st = await fsp.stat(b.source_path).catch(() => null);
    if (!st?.isDirectory()) throw ApiError.invalidField('source_path', `'${b.source_path}' is not a directory on the engine machine`);
    const envVars: Record<string, string> = {};
    for (const [k, v] of Object.entries(b.env_vars ?? {})) addEnv(envVars, k, v, `env_vars.${k}`);
    const input: DeploymentInput = {
      source: { kind: 'local', path: path.resolve(b.source_path) },
      entrypoint: b.entrypoint_rel_path,
      envVars,
      version: b.version ?? DEFAULT_VERSION,
      force: b.force ?? false,
    };
    return deployments.create(req.auth, input);
  });

  route(app, 'GET /deployments/:id', async (req) => deploymentDto(await deployments.get(req.auth, req.params.id)));

  route(app, 'GET /deployments', async (req, reply) => {
    const q = req.query;
    const page = pageOf(q);
    const rows = await deployments.list(req.auth, { ...q, ...page });
    return sendPage(reply, rows, page).map(deploymentDto);
  });

  route(app, 'DELETE /deployments/:id', async (req, reply) => {
    await deployments.delete(req.auth, req.params.id);
    return reply.status(204).send();
  });

  route(app, 'GET /deployments/:id/events', async (req, reply) => {
    const row = await deployments.get(req.auth, req.params.id);
    const since = parseSince(req.query.since, ctx.clock.now());
    const isTerminal = async (): Promise<boolean> => {
      const r = await ctx.db.selectFrom('deployments').select(['status', 'deleted_at']).where('id', '=', row.id).executeTakeFirst();
      return !r || !!r.deleted_at || isTerminalDeployment(r.status);
    };
    await streamAppEvents(openSse(reply, { heartbeat }), events, { ownerId: row.id, since, isTerminal });
  });
}
