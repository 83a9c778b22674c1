/** Routes of profiles. */
import { defineRoutes, sessionCall } from './route-spec.js';
import {
  ProfileCreateSchema,
  ProfileDownloadQuerySchema,
  ProfileIdParamSchema,
  ProfileListSchema,
  ProfileRenameSchema,
  ProfileSchema,
  SessionProfileSaveSchema,
} from '../profiles.js';
import { NamedListQuerySchema } from '../pagination.js';
import { SessionIdParamSchema } from '../session-id.js';

export const profilesRoutes = defineRoutes({
  'POST /profiles': {
    schema: { tags: ['profiles'], body: ProfileCreateSchema, response: { 200: ProfileSchema } },
    facts: { audit: 'profiles' },
  },
  'GET /profiles': {
    schema: { tags: ['profiles'], querystring: NamedListQuerySchema, response: { 200: ProfileListSchema } },
    facts: { audit: 'profiles' },
  },
  'GET /profiles/:id_or_name': {
    schema: { tags: ['profiles'], params: ProfileIdParamSchema, response: { 200: ProfileSchema } },
    facts: { reach: { table: 'profiles', param: 'id_or_name' }, audit: 'profiles' },
  },
  'PATCH /profiles/:id_or_name': {
    schema: { tags: ['profiles'], params: ProfileIdParamSchema, body: ProfileRenameSchema, response: { 200: ProfileSchema } },
    facts: { reach: { table: 'profiles', param: 'id_or_name' }, audit: 'profiles' },
  },
  'DELETE /profiles/:id_or_name': {
    schema: { tags: ['profiles'], params: ProfileIdParamSchema },
    facts: { reach: { table: 'profiles', param: 'id_or_name' }, audit: 'profiles' },
  },
  'GET /profiles/:id_or_name/download': {
    schema: { tags: ['profiles'], params: ProfileIdParamSchema, querystring: ProfileDownloadQuerySchema },
    facts: { reach: { table: 'profiles', param: 'id_or_name' }, audit: 'profiles' },
  },
  'POST /browsers/:id/profiles': {
    schema: { tags: ['profiles'], params: SessionIdParamSchema, body: SessionProfileSaveSchema, response: { 200: ProfileSchema } },
    facts: sessionCall('platform'),
  },
});
