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
    schema: { summary: 'Create a browser pool', tags: ['browser_pools'], body: PoolCreateSchema, response: { 200: BrowserPoolSchema } },
    facts: { forward: 'region', audit: 'browser_pools' },
  },
  'GET /browser_pools': {
    schema: { summary: 'List browser pools', tags: ['browser_pools'], querystring: PoolListQuerySchema, response: { 200: BrowserPoolListSchema } },
    facts: { audit: 'browser_pools' },
  },
  'GET /browser_pools/:id_or_name': {
    schema: { summary: 'Get a browser pool', tags: ['browser_pools'], params: PoolIdParamSchema, response: { 200: BrowserPoolSchema } },
    facts: { reach: { table: 'browser_pools', param: 'id_or_name' }, audit: 'browser_pools' },
  },
  'PATCH /browser_pools/:id_or_name': {
    schema: {
      summary: 'Update a browser pool',
      tags: ['browser_pools'],
      params: PoolIdParamSchema,
      body: PoolUpdateSchema,
      response: { 200: BrowserPoolSchema },
    },
    facts: { forward: 'pool', reach: { table: 'browser_pools', param: 'id_or_name' }, audit: 'browser_pools' },
  },
  'DELETE /browser_pools/:id_or_name': {
    schema: { summary: 'Delete a browser pool', tags: ['browser_pools'], params: PoolIdParamSchema, body: PoolDeleteBodySchema },
    facts: { forward: 'pool', reach: { table: 'browser_pools', param: 'id_or_name' }, audit: 'browser_pools' },
  },
  'POST /browser_pools/:id_or_name/acquire': {
    schema: {
      summary: 'Acquire a browser session from a pool',
      tags: ['browser_pools'],
      params: PoolIdParamSchema,
      body: PoolAcquireSchema,
      response: { 200: SessionSchema, 204: PoolAcquireTimeoutSchema },
    },
    facts: { forward: 'pool', reach: { table: 'browser_pools', param: 'id_or_name' }, audit: 'browser_pools' },
  },
  'POST /browser_pools/:id_or_name/release': {
    schema: { summary: 'Release a browser session back to its pool', tags: ['browser_pools'], params: PoolIdParamSchema, body: PoolReleaseSchema },
    facts: { forward: 'pool', reach: { table: 'browser_pools', param: 'id_or_name' }, audit: 'browser_pools' },
  },
  'POST /browser_pools/:id_or_name/flush': {
    schema: { summary: "Flush a pool's idle browser sessions", tags: ['browser_pools'], params: PoolIdParamSchema },
    facts: { forward: 'pool', reach: { table: 'browser_pools', param: 'id_or_name' }, audit: 'browser_pools' },
  },
});
