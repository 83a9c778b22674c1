/**
 * Renders every failure as the wire Error object. Validation failures become a 400 with one
 * `details` entry per invalid field; anything unexpected is logged and answered as a 500 that
 * reveals nothing internal.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorDetail } from './api-error.js';

interface AjvIssue {
  instancePath: string;
  message?: string;
  keyword: string;
  params: Record<string, unknown>;
}

function fieldOf(issue: AjvIssue, context: string | undefined): string {
  const path = issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const missing = issue.keyword === 'required' ? String(issue.params.missingProperty ?? '') : '';
  const extra = issue.keyword === 'additionalProperties' ? String(issue.params.additionalProperty ?? '') : '';
  const name = [path, missing || extra].filter(Boolean).join('.');
  return name || context || 'body';
}

function messageOf(issue: AjvIssue): string {
  if (issue.keyword === 'additionalProperties') return 'is not a known field';
  if (issue.keyword === 'required') return 'is required';
  return issue.message ?? 'is invalid';
}

export function validationDetails(issues: AjvIssue[], context?: string): ErrorDetail[] {
  const seen = new Map<string, ErrorDetail>();
  for (const issue of issues) {
    const field = fieldOf(issue, context);
    // anyOf/oneOf produce one issue per branch; one entry per field is what a client can act on.
    if (!seen.has(field)) seen.set(field, { code: 'invalid_field', message: `${field} ${messageOf(issue)}` });
  }
  return [...seen.values()];
}

/** The wire Error object of an ApiError (also written by hand where there is no reply, e.g. a raw upgrade socket). */
export function errorBody(err: ApiError): Record<string, unknown> {
  const body: Record<string, unknown> = { code: err.code, message: err.message, details: err.details };
  if (err.innerError) body.inner_error = err.innerError;
  return body;
}

/** The headers of a domain error's retry hint (`Retry-After`, `x-should-retry: false`). */
export function errorHeaders(err: ApiError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (err.retry.afterSeconds !== undefined) headers['retry-after'] = String(err.retry.afterSeconds);
  if (err.retry.retryable === false) headers['x-should-retry'] = 'false';
  return headers;
}

export function sendError(reply: FastifyReply, err: ApiError): void {
  for (const [k, v] of Object.entries(errorHeaders(err))) reply.header(k, v);
  void reply.status(err.status).type('application/json').send(errorBody(err));
}

export function toApiError(error: FastifyError | ApiError | Error, request?: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const fe = error as FastifyError & { validation?: AjvIssue[]; validationContext?: string };
  if (fe.validation) {
    const details = validationDetails(fe.validation, fe.validationContext);
    const where = fe.validationContext === 'querystring' ? 'query' : (fe.validationContext ?? 'request');
    return new ApiError(400, 'invalid_request', `invalid ${where}: ${details.map((d) => d.message).join('; ')}`, details);
  }
  const status = fe.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : status === 404 ? 'not_found' : 'invalid_request';
    return new ApiError(status, code, fe.message);
  }
  // A full disk is no server fault a client can cause: a session that filled its own filesystem
  // (its quota, runtime/session/session-disks.ts) gets 507 from any route that writes there.
  const errno = (error as NodeJS.ErrnoException).code;
  if (errno === 'ENOSPC' || errno === 'EDQUOT') return new ApiError(507, 'insufficient_storage', 'no space left on the filesystem this request writes to');
  request?.log.error({ err: error }, 'unhandled error');
  return new ApiError(500, 'internal_error', 'internal server error');
}

/** Client errors a route may answer with a 404 instead when the resource is out of the caller's reach. */
const REFUSALS_ALREADY = new Set([401, 403, 404]);

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (error, request, reply) => {
    let e = toApiError(error as FastifyError, request);
    // Permission before validation (resource-lookup-first.ts): asked only on this error path.
    const denyFirst = request.routeOptions?.config?.denyFirst;
    if (denyFirst && e.status >= 400 && e.status < 500 && !REFUSALS_ALREADY.has(e.status)) e = (await denyFirst(request).catch(() => null)) ?? e;
    sendError(reply, e);
    return reply;
  });
  app.setNotFoundHandler((request, reply) => {
    sendError(reply, new ApiError(404, 'not_found', `no route for ${request.method} ${request.url.split('?')[0]}`));
  });
}
