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
    schema: { summary: 'Create a profile', tags: ['profiles'], body: ProfileCreateSchema, response: { 200: ProfileSchema } },
    facts: { audit: 'profiles' },
  },
  'GET /profiles': {
    schema: { summary: 'List profiles', tags: ['profiles'], querystring: NamedListQuerySchema, response: { 200: ProfileListSchema } },
    facts: { audit: 'profiles' },
  },
  'GET /profiles/:id_or_name': {
    schema: { summary: 'Get a profile', tags: ['profiles'], params: ProfileIdParamSchema, response: { 200: ProfileSchema } },
    facts: { reach: { table: 'profiles', param: 'id_or_name' }, audit: 'profiles' },
  },
  'PATCH /profiles/:id_or_name': {
    schema: { summary: 'Update a profile', tags: ['profiles'], params: ProfileIdParamSchema, body: ProfileRenameSchema, response: { 200: ProfileSchema } },
    facts: { reach: { table: 'profiles', param: 'id_or_name' }, audit: 'profiles' },
  },
  'DELETE /profiles/:id_or_name': {
    schema: { summary: 'Delete a profile', tags: ['profiles'], params: ProfileIdParamSchema },
    facts: { reach: { table: 'profiles', param: 'id_or_name' }, audit: 'profiles' },
  },
  'GET /profiles/:id_or_name/download': {
    schema: { summary: 'Download a profile', tags: ['profiles'], params: ProfileIdParamSchema, querystring: ProfileDownloadQuerySchema },
    facts: { reach: { table: 'profiles', param: 'id_or_name' }, audit: 'profiles' },
  },
  'POST /browsers/:id/profiles': {
    schema: {
      summary: "Save the session's browser state to a profile",
      tags: ['profiles'],
      params: SessionIdParamSchema,
      body: SessionProfileSaveSchema,
      response: { 200: ProfileSchema },
    },
    facts: sessionCall('platform'),
  },
});
