/** Routes of the engine itself (hidden from /openapi.json): health, the document, the change feed, the console files, the tool pages a token opens. */
import { defineRoutes } from './route-spec.js';
import { FrontendAssetParamsSchema, TraceViewerParamsSchema } from '../session-inspect.js';

export const engineRoutes = defineRoutes({
  'GET /healthz': {
    schema: { hide: true },
    facts: { audit: 'healthz' },
  },
  'GET /openapi.json': {
    schema: { hide: true },
    facts: { audit: 'openapi.json' },
  },
  'GET /devtools-frontend/:token/*': {
    schema: { hide: true, params: FrontendAssetParamsSchema },
    facts: { forward: 'devtools-token', audit: 'devtools-frontend' },
  },
  'GET /trace-viewer/:token/*': {
    schema: { hide: true, params: TraceViewerParamsSchema },
    facts: { forward: 'trace-token', audit: 'trace-viewer' },
  },
  'GET /changes': {
    schema: { hide: true },
    facts: { audit: 'changes' },
  },
  'GET /': {
    schema: { hide: true },
    facts: { audit: '' },
  },
  'GET /assets/*': {
    schema: { hide: true },
    facts: { audit: 'assets' },
  },
});
