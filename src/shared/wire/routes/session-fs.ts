/** Routes of a session's file system. */
import { defineRoutes, sessionCall } from './route-spec.js';
import { SessionIdParamSchema } from '../session-id.js';
import {
  CreateDirectorySchema,
  FileInfoListSchema,
  FileInfoSchema,
  MovePathSchema,
  PathBodySchema,
  PathQuerySchema,
  SetPermissionsSchema,
  WatchCreateSchema,
  WatchParamsSchema,
  WriteFileQuerySchema,
} from '../session-fs.js';

export const sessionFsRoutes = defineRoutes({
  'GET /browsers/:id/fs/read_file': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, querystring: PathQuerySchema },
    facts: sessionCall('platform'),
  },
  'PUT /browsers/:id/fs/write_file': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, querystring: WriteFileQuerySchema },
    facts: sessionCall('platform'),
  },
  'PUT /browsers/:id/fs/create_directory': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, body: CreateDirectorySchema },
    facts: sessionCall('platform'),
  },
  'PUT /browsers/:id/fs/delete_directory': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, body: PathBodySchema },
    facts: sessionCall('platform'),
  },
  'PUT /browsers/:id/fs/delete_file': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, body: PathBodySchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/fs/list_files': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, querystring: PathQuerySchema, response: { 200: FileInfoListSchema } },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/fs/file_info': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, querystring: PathQuerySchema, response: { 200: FileInfoSchema } },
    facts: sessionCall('platform'),
  },
  'PUT /browsers/:id/fs/move': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, body: MovePathSchema },
    facts: sessionCall('platform'),
  },
  'PUT /browsers/:id/fs/set_file_permissions': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, body: SetPermissionsSchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/fs/download_dir_zip': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, querystring: PathQuerySchema },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/fs/upload': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, consumes: ['multipart/form-data'] },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/fs/upload_zip': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, consumes: ['multipart/form-data'] },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/fs/watch': {
    schema: { tags: ['browser fs'], params: SessionIdParamSchema, body: WatchCreateSchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/fs/watch/:watch_id/events': {
    schema: { tags: ['browser fs'], params: WatchParamsSchema },
    facts: sessionCall('platform'),
  },
  'DELETE /browsers/:id/fs/watch/:watch_id': {
    schema: { tags: ['browser fs'], params: WatchParamsSchema },
    facts: sessionCall('platform'),
  },
});
