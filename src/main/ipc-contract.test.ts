/** Type tests of the IPC contract: channel lists, argument/result types and the exposed API agree. */
import { describe, expectTypeOf, it, expect } from 'vitest';
import { INVOKE_CHANNELS, EVENT_CHANNELS } from '../shared/ipc/channels.js';
import {
  invokeArgs,
  type ApiRequest,
  type ApiResponse,
  type ConnectionInfo,
  type EventChannel,
  type ExposedApi,
  type InvokeArgs,
  type InvokeChannel,
  type InvokeResult,
  type InvokeResults,
  type IpcResult,
  type DownloadResult,
} from '../shared/ipc/contract.js';
import type { InvokeHandlers } from './ipc-router.js';

describe('IPC contract types', () => {
  it('lists the same channels everywhere', () => {
    expectTypeOf<(typeof INVOKE_CHANNELS)[number]>().toEqualTypeOf<InvokeChannel>();
    expectTypeOf<keyof typeof invokeArgs>().toEqualTypeOf<keyof InvokeResults>();
    expectTypeOf<(typeof EVENT_CHANNELS)[number]>().toEqualTypeOf<EventChannel>();
    expect([...INVOKE_CHANNELS].sort()).toEqual(Object.keys(invokeArgs).sort());
  });

  it('types arguments and results per channel', () => {
    expectTypeOf<InvokeArgs<'api:request'>>().toEqualTypeOf<[ApiRequest]>();
    expectTypeOf<InvokeArgs<'connections:list'>>().toEqualTypeOf<[]>();
    expectTypeOf<InvokeResult<'api:request'>>().toEqualTypeOf<ApiResponse>();
    expectTypeOf<InvokeResult<'connections:list'>>().toEqualTypeOf<ConnectionInfo[]>();
    expectTypeOf<InvokeResult<'api:download'>>().toEqualTypeOf<DownloadResult>();
    expectTypeOf<ApiRequest['method']>().toEqualTypeOf<'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'>();
  });

  it('exposes a typed invoke that returns {result}|{error}', () => {
    const api = {} as ExposedApi;
    expectTypeOf<ReturnType<typeof api.invoke<'connections:list'>>>().toEqualTypeOf<Promise<IpcResult<ConnectionInfo[]>>>();
    // @ts-expect-error unknown channel
    void (() => api.invoke('fs:read', {}));
    // @ts-expect-error missing argument
    void (() => api.invoke('api:request'));
    // @ts-expect-error wrong argument shape
    void (() => api.invoke('connections:remove', { name: 'x' }));
    expectTypeOf<Parameters<InvokeHandlers['connections:add']>>().toEqualTypeOf<InvokeArgs<'connections:add'>>();
    // No key ever reaches the renderer: ConnectionInfo has only the masked form.
    expectTypeOf<ConnectionInfo>().not.toHaveProperty('apiKey');
  });
});
