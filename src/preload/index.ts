/**
 * Preload bridge: exposes `window.api` (the contract's `ExposedApi`) through contextBridge and
 * nothing else — no ipcRenderer, no Node. Invokes are limited to contract channels and return
 * `{result}|{error}` as main sent them (the renderer's desktop transport rebuilds errors).
 * A stream gets its own MessageChannel: one port goes to main with the request, the other
 * stays here and feeds the renderer's callbacks until the stream ends or is disposed.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { EVENT_CHANNELS, INVOKE_CHANNELS, STREAM_OPEN_CHANNEL } from '../shared/ipc/channels.js';
import type { EventChannel, ExposedApi, IpcResult, StreamControl, StreamMessage } from '../shared/ipc/contract.js';

const invokeChannels = new Set<string>(INVOKE_CHANNELS);
const eventChannels = new Set<string>(EVENT_CHANNELS);

const api: ExposedApi = {
  invoke(channel, ...args) {
    if (!invokeChannels.has(channel)) return Promise.resolve({ error: { name: 'ValidationError', message: `unknown IPC channel: ${String(channel)}` } });
    return ipcRenderer.invoke(channel, ...args) as Promise<IpcResult<never>>;
  },
  openStream(request, handlers) {
    const { port1, port2 } = new MessageChannel();
    let ended = false;
    const finish = (error?: Parameters<typeof handlers.onEnd>[0]): void => {
      if (ended) return;
      ended = true;
      port1.close();
      handlers.onEnd(error);
    };
    port1.onmessage = (e: MessageEvent<StreamMessage>) => {
      if (e.data?.type === 'frame') handlers.onFrame(e.data.data);
      else if (e.data?.type === 'end') finish(e.data.error);
    };
    ipcRenderer.postMessage(STREAM_OPEN_CHANNEL, request, [port2]);
    return {
      dispose() {
        if (ended) return;
        port1.postMessage({ type: 'dispose' } satisfies StreamControl);
        finish();
      },
    };
  },
  on(event, listener) {
    if (!eventChannels.has(event)) throw new Error(`unknown event: ${String(event)}`);
    const wrapped = (_e: unknown, payload: unknown): void => listener(payload as never);
    ipcRenderer.on(event as EventChannel, wrapped);
    return () => void ipcRenderer.removeListener(event, wrapped);
  },
};

contextBridge.exposeInMainWorld('api', Object.freeze(api));
