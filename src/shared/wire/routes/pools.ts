/** Routes of browser pools. */
import { defineRoutes } from './route-spec.js';
import {
  BrowserPoolListSchema,
  BrowserPoolSchema,
  PoolAcquireSchema,
  PoolAcquireTimeoutSchema,
  PoolCreateSchema,
  PoolDeleteBodySchema,
  PoolIdParamSchema,
  PoolListQuerySchema,
  PoolReleaseSchema,
  PoolUpdateSchema,
} from '../pools.js';
import { SessionSchema } from '../sessions.js';

export const poolsRoutes = defineRoutes({
  'POST /browser_pools': {
    schema: { tags: ['browser_pools'], body: PoolCreateSchema, response: { 200: BrowserPoolSchema } },
    facts: { forward: 'region', audit: 'browser_pools' },
  },
  'GET /browser_pools': {
    schema: { tags: ['browser_pools'], querystring: PoolListQuerySchema, response: { 200: BrowserPoolListSchema } },
    facts: { audit: 'browser_pools' },
  },
  'GET /browser_pools/:id_or_name': {
    schema: { tags: ['browser_pools'], params: PoolIdParamSchema, response: { 200: BrowserPoolSchema } },
    facts: { reach: { table: 'browser_pools', param: 'id_or_name' }, audit: 'browser_pools' },
  },
  'PATCH /browser_pools/:id_or_name': {
    schema: { tags: ['browser_pools'], params: PoolIdParamSchema, body: PoolUpdateSchema, response: { 200: BrowserPoolSchema } },
    facts: { forward: 'pool', reach: { table: 'browser_pools', param: 'id_or_name' }, audit: 'browser_pools' },
  },
  'DELETE /browser_pools/:id_or_name': {
    schema: { tags: ['browser_pools'], params: PoolIdParamSchema, body: PoolDeleteBodySchema },
    facts: { forward: 'pool', reach: { table: 'browser_pools', param: 'id_or_name' }, audit: 'browser_pools' },
  },
  'POST /browser_pools/:id_or_name/acquire': {
    schema: { tags: ['browser_pools'], params: PoolIdParamSchema, body: PoolAcquireSchema, response: { 200: SessionSchema, 204: PoolAcquireTimeoutSchema } },
    facts: { forward: 'pool', reach: { table: 'browser_pools', param: 'id_or_name' }, audit: 'browser_pools' },
  },
  'POST /browser_pools/:id_or_name/release': {
    schema: { tags: ['browser_pools'], params: PoolIdParamSchema, body: PoolReleaseSchema },
    facts: { forward: 'pool', reach: { table: 'browser_pools', param: 'id_or_name' }, audit: 'browser_pools' },
  },
  'POST /browser_pools/:id_or_name/flush': {
    schema: { tags: ['browser_pools'], params: PoolIdParamSchema },
    facts: { forward: 'pool', reach: { table: 'browser_pools', param: 'id_or_name' }, audit: 'browser_pools' },
  },
});
