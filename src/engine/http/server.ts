/**
 * Assembles the Fastify server: JSON-schema validation (TypeBox) that reports every invalid
 * field, the Error object for every failure, bearer/JWT auth, the OpenAPI document generated
 * from the route schemas, and WebSocket upgrades on the same port.
 */
import Fastify, { LogController } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../feature.js';
import { installErrorHandling, sendError, toApiError } from './error-handler.js';
import { ApiError } from './api-error.js';
import { installBodyParsers } from './body-parsers.js';
import { redactUrl } from './redact.js';
import { installValidators } from './validators.js';
import { installSerializers } from './serializers.js';
import { installNulGuard } from './nul-guard.js';
import { endOpenSseStreams } from './sse.js';
import { clientErrorHandler } from './client-error.js';
import { installTenantBytesGuard } from './tenant-bytes.js';

export type { App } from '../feature.js';

/** `stream`: where log lines go instead of stdout (the engine tees them into its `LogTail`). */
export async function createHttpServer(opts: { logLevel: string; stream?: NodeJS.WritableStream }): Promise<App> {
  const app = Fastify({
    logger: {
      level: opts.logLevel,
      ...(opts.stream ? { stream: opts.stream } : {}),
      // Query strings carry session JWTs; request URLs are logged redacted only.
      serializers: { req: (req) => ({ method: req.method, url: redactUrl(req.url) }) },
    },
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: false,
    bodyLimit: 50 * 1024 * 1024,
    forceCloseConnections: true,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    // Errors Fastify raises before routing (a malformed %-escape in the URL) bypass the error
    // handler; answer them with the wire Error object too.
    frameworkErrors: (error, _req, reply) => {
      const e =
        (error as { code?: string }).code === 'FST_ERR_BAD_URL'
          ? new ApiError(400, 'invalid_request', 'the URL is malformed (a %-escape is not valid UTF-8)')
          : toApiError(error);
      sendError(reply, e);
    },
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();
  installValidators(app);
  installSerializers(app);
  installBodyParsers(app);
  installErrorHandling(app);
  installNulGuard(app);
  installTenantBytesGuard(app);
  // Before Fastify force-closes every connection at stop: end the SSE streams properly first.
  app.addHook('preClose', async () => endOpenSseStreams(app.server));
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Browserdeck — Browser Session Service API', version: '0.1.0' },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearerAuth: [] }],
    },
  });
  return app;
}
