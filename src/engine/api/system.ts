/**
 * `GET /system`: what the console's System page adds to `/healthz` — the store's location, the
 * data dir's free space and the engine's recent log lines (`http/log-tail.ts`). It names paths
 * and hosts, so only an org-wide key (the operator's) may read it; a PostgreSQL URL is cut down
 * to host, port and database, never its user or password.
 */
import fsp from 'node:fs/promises';
import type { Feature } from '../feature.js';
import type { SystemStatus } from '../../shared/wire/system-status.js';
import { orgWideKeyFirst } from '../domain/org/access.js';
import { route } from '../route.js';

const MIB = 1024 * 1024;

/** `host:port/database` of a PostgreSQL URL, without its credentials or options. */
export function postgresLocation(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname || '/'}`;
  } catch {
    return 'PostgreSQL (unparsable URL)';
  }
}

export const systemFeature: Feature = {
  name: 'system',
  register(app, ctx) {
    route(app, 'GET /system', { onRequest: orgWideKeyFirst("reading the engine's system status") }, async (): Promise<SystemStatus> => {
      const fs = await fsp.statfs(ctx.config.dataDir);
      return {
        store:
          ctx.store.dialect === 'postgres'
            ? { kind: 'postgres', location: postgresLocation(ctx.config.databaseUrl ?? '') }
            : { kind: 'sqlite', location: ctx.store.sqliteFile ?? '' },
        data_dir: {
          path: ctx.config.dataDir,
          free_bytes: fs.bavail * fs.bsize,
          total_bytes: fs.blocks * fs.bsize,
          reserve_bytes: ctx.config.diskReserveMb * MIB,
        },
        log: ctx.logTail.snapshot(),
      };
    });
  },
};
