/**
 * The hosted login page of an auth connection: a public page (no API key) a person opens to
 * finish a flow in progress, authorized only by the flow's handoff code. GET shows the current
 * step, POST answers it and redirects back to the page.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ApiError } from '../http/api-error.js';
import type { AuthConnections, ConnectionRow } from '../domain/auth-connections/auth-connections.js';
import type { AuthService } from '../domain/auth-connections/auth-service.js';
import type { FlowView } from '../domain/auth-connections/flow-state.js';
import { hostedPage, hostedSubmission } from '../domain/auth-connections/hosted-page.js';

const IdParam = Type.Object({ id: Type.String({ minLength: 1 }) });
const HostedQuery = Type.Object({ code: Type.String({ maxLength: 128 }) });
const MAX_FORM_BYTES = 65536;

async function readText(stream: Readable, limit = MAX_FORM_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    size += (c as Buffer).length;
    if (size > limit) throw new ApiError(413, 'payload_too_large', 'form too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function registerHostedPage(app: FastifyInstance, connections: AuthConnections, service: AuthService): void {
  const hostedFlow = async (req: FastifyRequest): Promise<{ row: ConnectionRow; flow: FlowView }> => {
    const { id } = req.params as { id: string };
    const code = String((req.query as { code?: string }).code ?? '');
    const row = await connections.byId(id);
    const flow = row ? service.flowView(row) : undefined;
    const ok = flow && code.length === flow.handoff_code.length && timingSafeEqual(Buffer.from(code), Buffer.from(flow.handoff_code));
    if (!row || !flow || !ok) throw ApiError.notFound('login flow');
    return { row, flow };
  };
  const schema = { hide: true, params: IdParam, querystring: HostedQuery } as object;
  app.get('/auth/connections/:id/hosted', { config: { public: true }, schema }, async (req, reply) => {
    const { row, flow } = await hostedFlow(req);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(hostedPage(row.domain, flow, req.url));
  });
  app.post('/auth/connections/:id/hosted', { config: { public: true }, schema }, async (req, reply) => {
    const { row } = await hostedFlow(req);
    const form = new URLSearchParams(req.body && typeof (req.body as Readable).pipe === 'function' ? await readText(req.body as Readable) : '');
    service.submit(row, hostedSubmission(form));
    return reply.redirect(req.url, 303);
  });
}
