/**
 * MCP resources, Kernel's URIs: `browsers://` (the running sessions) and `browsers://{session_id}`,
 * `profiles://` and `profiles://{name}`, `apps://` and `apps://{app_name}`, and Browserdeck's
 * `replays://{session_id}` (a session's recordings). Read through the API as the caller, like
 * the tools; a failed read is an MCP error carrying the API's code and message.
 */
import { McpError, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ApiCallError, seg, type EngineCall } from './engine-call.js';

const json = (uri: URL, value: unknown): ReadResourceResult => ({
  contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }],
});

/** The API's error as an MCP error: JSON-RPC "invalid params" for a 4xx, with the API's code in its data. */
async function read(uri: URL, get: () => Promise<unknown>): Promise<ReadResourceResult> {
  try {
    return json(uri, await get());
  } catch (err) {
    if (err instanceof ApiCallError)
      throw new McpError(err.status < 500 ? -32602 : -32603, `${err.code}: ${err.message}`, { status: err.status, code: err.code });
    throw err;
  }
}

const one = (v: string | string[]): string => (Array.isArray(v) ? v[0] : v);

export function registerResources(server: McpServer, api: EngineCall): void {
  const opts = { mimeType: 'application/json' };
  server.registerResource('browsers', 'browsers://', { ...opts, description: 'The running browser sessions' }, (uri) =>
    read(uri, () => api.json('GET', '/browsers')),
  );
  server.registerResource(
    'browser',
    new ResourceTemplate('browsers://{session_id}', { list: undefined }),
    { ...opts, description: 'One browser session' },
    (uri, v) => read(uri, () => api.json('GET', `/browsers/${seg(one(v.session_id))}`)),
  );
  server.registerResource('profiles', 'profiles://', { ...opts, description: 'The saved browser profiles' }, (uri) =>
    read(uri, () => api.json('GET', '/profiles')),
  );
  server.registerResource(
    'profile',
    new ResourceTemplate('profiles://{name}', { list: undefined }),
    { ...opts, description: 'One profile, by name or id' },
    (uri, v) => read(uri, () => api.json('GET', `/profiles/${seg(one(v.name))}`)),
  );
  server.registerResource('apps', 'apps://', { ...opts, description: 'The deployed apps' }, (uri) => read(uri, () => api.json('GET', '/apps')));
  server.registerResource('app', new ResourceTemplate('apps://{app_name}', { list: undefined }), { ...opts, description: "One app's versions" }, (uri, v) =>
    read(uri, () => api.json('GET', '/apps', { query: { app_name: one(v.app_name) } })),
  );
  server.registerResource(
    'replays',
    new ResourceTemplate('replays://{session_id}', { list: undefined }),
    { ...opts, description: "A browser session's recordings" },
    (uri, v) => read(uri, () => api.json('GET', `/browsers/${seg(one(v.session_id))}/replays`)),
  );
}
