/**
 * The hosted login page of an auth connection: a public page (no API key) a person opens to
 * finish a flow in progress, authorized only by the flow's handoff code. GET shows the current
 * step, POST answers it and redirects back to the page.
 */
import type { FastifyRequest } from 'fastify';
import type { App } from '../feature.js';
import { timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ApiError } from '../http/api-error.js';
import type { AuthConnections, ConnectionRow } from '../domain/auth-connections/auth-connections.js';
import type { AuthService } from '../domain/auth-connections/auth-service.js';
import type { FlowView } from '../domain/auth-connections/flow-state.js';
import { hostedPage, hostedSubmission } from '../domain/auth-connections/hosted-page.js';
import { route } from '../route.js';

const MAX_FORM_BYTES = 65536;

/** The form arrives unparsed (a stream) when its content type is one no parser took. */
function isStream(body: unknown): body is Readable {
  return typeof body === 'object' && body !== null && 'pipe' in body && typeof body.pipe === 'function';
}

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

type HostedRequest = Pick<FastifyRequest, 'auth'> & { params: { id: string }; query: { code?: string } };

export function registerHostedPage(app: App, connections: AuthConnections, service: AuthService): void {
  const hostedFlow = async (req: HostedRequest): Promise<{ row: ConnectionRow; flow: FlowView }> => {
    const { id } = req.params;
    const code = String(req.query.code ?? '');
    const row = await connections.byId(id);
    const flow = row ? service.flowView(row) : undefined;
    const ok = flow && code.length === flow.handoff_code.length && timingSafeEqual(Buffer.from(code), Buffer.from(flow.handoff_code));
    if (!row || !flow || !ok) throw ApiError.notFound('login flow');
    return { row, flow };
  };
  route(app, 'GET /auth/connections/:id/hosted', { config: { public: true, enginePage: true } }, async (req, reply) => {
    const { row, flow } = await hostedFlow(req);
    return (
      reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        // The engine's page, no script: the site's strings (domain, field labels) are escaped text.
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
        .send(hostedPage(row.domain, flow, req.url))
    );
  });
  route(app, 'POST /auth/connections/:id/hosted', { config: { public: true } }, async (req, reply) => {
    const { row } = await hostedFlow(req);
    const form = new URLSearchParams(isStream(req.body) ? await readText(req.body) : '');
    service.submit(row, hostedSubmission(form));
    return reply.redirect(req.url, 303);
  });
}
