/** Routes of the engine itself (hidden from /openapi.json): health, the system status, the document, the change feed, the console files, the tool pages a token opens. */
import { defineRoutes } from './route-spec.js';
import { FrontendAssetParamsSchema, TraceViewerParamsSchema } from '../session-inspect.js';
import { SystemStatusSchema } from '../system-status.js';

export const engineRoutes = defineRoutes({
  'GET /healthz': {
    schema: { summary: "Check the engine's health", hide: true },
    facts: { audit: 'healthz' },
  },
  'GET /system': {
    schema: { summary: "The engine's store, data dir and recent log (org-wide keys)", hide: true, response: { 200: SystemStatusSchema } },
    facts: { audit: 'system' },
  },
  'GET /openapi.json': {
    schema: { summary: 'Get the OpenAPI document', hide: true },
    facts: { audit: 'openapi.json' },
  },
  'GET /devtools-frontend/:token/*': {
    schema: { summary: 'Serve the DevTools frontend a link opens', hide: true, params: FrontendAssetParamsSchema },
    facts: { forward: 'devtools-token', audit: 'devtools-frontend' },
  },
  'GET /trace-viewer/:token/*': {
    schema: { summary: 'Serve the trace viewer a link opens', hide: true, params: TraceViewerParamsSchema },
    facts: { forward: 'trace-token', audit: 'trace-viewer' },
  },
  'GET /changes': {
    schema: { summary: "Stream changes to the caller's resources", hide: true },
    facts: { audit: 'changes' },
  },
  'GET /': {
    schema: { summary: 'Serve the console', hide: true },
    facts: { audit: '' },
  },
  'GET /favicon.ico': {
    schema: { summary: "Serve the console's icon", hide: true },
    facts: { audit: '' },
  },
  'GET /assets/*': {
    schema: { summary: "Serve the console's assets", hide: true },
    facts: { audit: 'assets' },
  },
});
