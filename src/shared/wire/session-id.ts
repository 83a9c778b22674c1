/**
 * The session a `/browsers/{id}…` route addresses, declared once for every such route. Its
 * bound is the most permissive any of them accepted before (a non-empty string: ids and names,
 * no upper bound beyond the router's 500-character parameter limit), so no id or name that some
 * route accepted becomes invalid; an unknown one is the handler's 404.
 */
import { Type } from '@sinclair/typebox';

export const SessionIdSchema = Type.String({ minLength: 1, description: 'the browser session id (or name)' });
export const SessionIdParamSchema = Type.Object({ id: SessionIdSchema });
