/**
 * The telemetry of API calls on a session's routes (`/browsers/:id…`), an onResponse hook that
 * api/browsers.ts installs for every request (callback style: routes outside a session cost no
 * promise). Since Kernel 0.94 (§6.4) two events split them:
 * - `control/api_call`: agent-driven calls that drive the browser — computer control, Playwright
 *   execution (with `data.code`, the submitted source capped at 8192 bytes), the REPL, `/curl`
 *   through the browser, WebMCP invocations;
 * - `platform/api_call` → `platform_api_call`: calls that manage the session rather than drive
 *   it — the session itself (GET/PATCH/DELETE), files, processes, recordings, logs, extensions,
 *   HAR, DevTools discovery, executors, WebMCP tool lists (opt-in category).
 * Reading the session's telemetry or watching its live view records nothing: a client polling
 * `/telemetry/events` must not feed the stream it reads.
 */
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { TelemetryService } from '../runtime/telemetry/telemetry-service.js';
import { stringField } from '../../shared/string-field.js';
import { cutText } from '../runtime/telemetry/har-body.js';

const EXECUTE = '/browsers/:id/playwright/execute';

/** Kernel's cap on `api_call.data.code`, in UTF-8 bytes. */
export const CODE_LIMIT_BYTES = 8192;
const CUT = '...[truncated]';

export function recordApiCalls(telemetry: TelemetryService): (req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  return (req, reply, done) => {
    // The route's `apiCall` fact (shared/wire/routes): which event, if any.
    const kind = req.routeOptions?.config?.apiCall;
    const route = req.routeOptions?.url;
    const id = kind ? stringField(req.params, 'id') : undefined;
    if (id) {
      const drives = kind === 'control';
      const code = route === EXECUTE ? stringField(req.body, 'code') : undefined;
      telemetry.emit(id, drives ? 'control' : 'platform', drives ? 'api_call' : 'platform_api_call', {
        source: { kind: 'kernel_api', event: `${req.method} ${route}` },
        data: {
          duration_ms: Math.round(reply.elapsedTime * 100) / 100,
          operation_id: operationId(req),
          request_id: String(req.id),
          status: reply.statusCode,
          ...(code !== undefined ? { code: capCode(code) } : {}),
        },
        stringLimits: { code: CODE_LIMIT_BYTES + CUT.length },
      });
    }
    done();
  };
}

/** At most 8192 UTF-8 bytes, cut on a character boundary and marked. */
export function capCode(code: string): string {
  const kept = cutText(code, CODE_LIMIT_BYTES);
  return kept === code ? code : kept + CUT;
}

/** The route's operationId when its schema names one, else `METHOD /route/pattern`. */
function operationId(req: FastifyRequest): string {
  const schema = req.routeOptions?.schema as { operationId?: string } | undefined;
  return schema?.operationId ?? `${req.method} ${req.routeOptions?.url ?? ''}`;
}
