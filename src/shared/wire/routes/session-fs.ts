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
    schema: { summary: "Read a file from the session's filesystem", tags: ['browser fs'], params: SessionIdParamSchema, querystring: PathQuerySchema },
    facts: sessionCall('platform'),
  },
  'PUT /browsers/:id/fs/write_file': {
    schema: { summary: "Write a file to the session's filesystem", tags: ['browser fs'], params: SessionIdParamSchema, querystring: WriteFileQuerySchema },
    facts: sessionCall('platform'),
  },
  'PUT /browsers/:id/fs/create_directory': {
    schema: { summary: "Create a directory in the session's filesystem", tags: ['browser fs'], params: SessionIdParamSchema, body: CreateDirectorySchema },
    facts: sessionCall('platform'),
  },
  'PUT /browsers/:id/fs/delete_directory': {
    schema: { summary: "Delete a directory from the session's filesystem", tags: ['browser fs'], params: SessionIdParamSchema, body: PathBodySchema },
    facts: sessionCall('platform'),
  },
  'PUT /browsers/:id/fs/delete_file': {
    schema: { summary: "Delete a file from the session's filesystem", tags: ['browser fs'], params: SessionIdParamSchema, body: PathBodySchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/fs/list_files': {
    schema: {
      summary: "List files in a directory of the session's filesystem",
      tags: ['browser fs'],
      params: SessionIdParamSchema,
      querystring: PathQuerySchema,
      response: { 200: FileInfoListSchema },
    },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/fs/file_info': {
    schema: {
      summary: "Get information about a file in the session's filesystem",
      tags: ['browser fs'],
      params: SessionIdParamSchema,
      querystring: PathQuerySchema,
      response: { 200: FileInfoSchema },
    },
    facts: sessionCall('platform'),
  },
  'PUT /browsers/:id/fs/move': {
    schema: { summary: "Move or rename a file in the session's filesystem", tags: ['browser fs'], params: SessionIdParamSchema, body: MovePathSchema },
    facts: sessionCall('platform'),
  },
  'PUT /browsers/:id/fs/set_file_permissions': {
    schema: { summary: "Set a file's permissions in the session's filesystem", tags: ['browser fs'], params: SessionIdParamSchema, body: SetPermissionsSchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/fs/download_dir_zip': {
    schema: {
      summary: "Download a directory of the session's filesystem as a zip",
      tags: ['browser fs'],
      params: SessionIdParamSchema,
      querystring: PathQuerySchema,
    },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/fs/upload': {
    schema: { summary: "Upload files to the session's filesystem", tags: ['browser fs'], params: SessionIdParamSchema, consumes: ['multipart/form-data'] },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/fs/upload_zip': {
    schema: {
      summary: "Upload a zip and extract it into the session's filesystem",
      tags: ['browser fs'],
      params: SessionIdParamSchema,
      consumes: ['multipart/form-data'],
    },
    facts: sessionCall('platform'),
  },
  'POST /browsers/:id/fs/watch': {
    schema: { summary: "Watch a directory of the session's filesystem", tags: ['browser fs'], params: SessionIdParamSchema, body: WatchCreateSchema },
    facts: sessionCall('platform'),
  },
  'GET /browsers/:id/fs/watch/:watch_id/events': {
    schema: { summary: "Stream a filesystem watch's events", tags: ['browser fs'], params: WatchParamsSchema },
    facts: sessionCall('platform'),
  },
  'DELETE /browsers/:id/fs/watch/:watch_id': {
    schema: { summary: 'Stop a filesystem watch', tags: ['browser fs'], params: WatchParamsSchema },
    facts: sessionCall('platform'),
  },
});
