/**
 * The origin a caller reached the engine at (`Host` and the scheme), for pages the engine builds
 * links and CSPs into (DevTools frontend, trace viewer): those must name the address the
 * operator's browser actually uses, which behind a proxy or a port map may differ from the
 * engine's configured public URL.
 */
import type { FastifyRequest } from 'fastify';

export interface RequestOrigin {
  /** `http(s)://host[:port]` */
  http: string;
  host: string;
  secure: boolean;
}

export function requestOrigin(req: Pick<FastifyRequest, 'protocol' | 'headers'>): RequestOrigin {
  const host = String(req.headers.host ?? '127.0.0.1');
  const secure = req.protocol === 'https';
  return { http: `${secure ? 'https' : 'http'}://${host}`, host, secure };
}
