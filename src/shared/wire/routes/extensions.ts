/** Routes of browser extensions. */
import { defineRoutes } from './route-spec.js';
import { ChromeStoreQuerySchema, ExtensionIdParamSchema, ExtensionListQuerySchema, ExtensionListSchema, ExtensionSchema } from '../extensions.js';

export const extensionsRoutes = defineRoutes({
  'POST /extensions': {
    schema: { summary: 'Upload an extension', tags: ['extensions'], consumes: ['multipart/form-data'], response: { 200: ExtensionSchema } },
    facts: { audit: 'extensions' },
  },
  'GET /extensions': {
    schema: { summary: 'List extensions', tags: ['extensions'], querystring: ExtensionListQuerySchema, response: { 200: ExtensionListSchema } },
    facts: { audit: 'extensions' },
  },
  'GET /extensions/from_chrome_store': {
    schema: { summary: 'Download an extension from the Chrome Web Store', tags: ['extensions'], querystring: ChromeStoreQuerySchema },
    facts: { audit: 'extensions' },
  },
  'GET /extensions/:id_or_name': {
    schema: { summary: 'Download an extension', tags: ['extensions'], params: ExtensionIdParamSchema },
    facts: { reach: { table: 'extensions', param: 'id_or_name' }, audit: 'extensions' },
  },
  'GET /extensions/:id_or_name/metadata': {
    schema: { summary: "Get an extension's metadata", tags: ['extensions'], params: ExtensionIdParamSchema, response: { 200: ExtensionSchema } },
    facts: { reach: { table: 'extensions', param: 'id_or_name' }, audit: 'extensions' },
  },
  'DELETE /extensions/:id_or_name': {
    schema: { summary: 'Delete an extension', tags: ['extensions'], params: ExtensionIdParamSchema },
    facts: { reach: { table: 'extensions', param: 'id_or_name' }, audit: 'extensions' },
  },
});
