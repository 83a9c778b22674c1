/**
 * Channel names of the desktop IPC contract, with no dependencies so the sandboxed preload can
 * import them cheaply. `contract.ts` holds the schemas and types of each; a type test keeps
 * these lists and the contract's maps identical.
 */
export const INVOKE_CHANNELS = [
  'app:info',
  'connections:list',
  'connections:add',
  'connections:remove',
  'connections:activate',
  'connections:check',
  'api:request',
  'api:download',
  'api:binary',
  'shell:open-external',
  'inspect:open-window',
  'settings:get',
  'settings:save',
  'engine:restart',
] as const;

export const EVENT_CHANNELS = ['connections:changed', 'engine:status'] as const;

/** Channel the preload uses to hand main a MessagePort for one stream. */
export const STREAM_OPEN_CHANNEL = 'stream:open';
