/** Routes of proxies. */
import { defineRoutes } from './route-spec.js';
import { ProxyCheckSchema, ProxyCreateSchema, ProxyIdParamSchema, ProxyListSchema, ProxyRenameSchema, ProxySchema } from '../identity.js';
import { NamedListQuerySchema } from '../pagination.js';

export const proxiesRoutes = defineRoutes({
  'POST /proxies': {
    schema: { summary: 'Create a proxy', tags: ['proxies'], body: ProxyCreateSchema, response: { 200: ProxySchema } },
    facts: { audit: 'proxies' },
  },
  'GET /proxies': {
    schema: { summary: 'List proxies', tags: ['proxies'], querystring: NamedListQuerySchema, response: { 200: ProxyListSchema } },
    facts: { audit: 'proxies' },
  },
  'GET /proxies/:id': {
    schema: { summary: 'Get a proxy', tags: ['proxies'], params: ProxyIdParamSchema, response: { 200: ProxySchema } },
    facts: { reach: { table: 'proxies', param: 'id' }, audit: 'proxies' },
  },
  'PATCH /proxies/:id': {
    schema: { summary: 'Update a proxy', tags: ['proxies'], params: ProxyIdParamSchema, body: ProxyRenameSchema, response: { 200: ProxySchema } },
    facts: { reach: { table: 'proxies', param: 'id' }, audit: 'proxies' },
  },
  'DELETE /proxies/:id': {
    schema: { summary: 'Delete a proxy', tags: ['proxies'], params: ProxyIdParamSchema },
    facts: { reach: { table: 'proxies', param: 'id' }, audit: 'proxies' },
  },
  'POST /proxies/:id/check': {
    schema: { summary: "Check a proxy's health", tags: ['proxies'], params: ProxyIdParamSchema, body: ProxyCheckSchema, response: { 200: ProxySchema } },
    facts: { reach: { table: 'proxies', param: 'id' }, audit: 'proxies' },
  },
});
