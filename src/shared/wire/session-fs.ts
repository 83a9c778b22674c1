/**
 * Wire schemas of a session's filesystem (`/browsers/{id}/fs/*`, wire §3.8, §3.9): paths,
 * file info, watches. The engine validates and documents with them; the UI uses the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { SessionIdSchema } from './session-id.js';

export const WatchParamsSchema = Type.Object({ id: SessionIdSchema, watch_id: Type.String({ minLength: 1 }) });
export const PathQuerySchema = Type.Object({ path: Type.String({ description: 'absolute path inside the session filesystem' }) });
export const PathBodySchema = Type.Object({ path: Type.String() });
const ModeString = Type.String({ description: 'octal permission bits, e.g. "644"' });
export const WriteFileQuerySchema = Type.Object({ path: Type.String(), mode: Type.Optional(ModeString) });
export const CreateDirectorySchema = Type.Object({ path: Type.String(), mode: Type.Optional(ModeString) });
export const MovePathSchema = Type.Object({ src_path: Type.String(), dest_path: Type.String() });
export const SetPermissionsSchema = Type.Object({
  path: Type.String(),
  mode: ModeString,
  owner: Type.Optional(Type.String()),
  group: Type.Optional(Type.String()),
});
export const WatchCreateSchema = Type.Object({ path: Type.String(), recursive: Type.Optional(Type.Boolean()) });

export const FileInfoSchema = Type.Object({
  name: Type.String(),
  path: Type.String(),
  is_dir: Type.Boolean(),
  mode: Type.String(),
  mod_time: Type.String({ format: 'date-time' }),
  size_bytes: Type.Integer(),
});
export type FileInfo = Static<typeof FileInfoSchema>;
export const FileInfoListSchema = Type.Array(FileInfoSchema);
