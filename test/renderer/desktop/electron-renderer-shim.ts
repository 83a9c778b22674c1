/**
 * The `electron` module as the preload sees it, for the desktop harness: the real preload
 * (src/preload/index.ts) is bundled with this in place of Electron and injected into the page.
 * `contextBridge` puts the API on window; `ipcRenderer` forwards invokes, stream ports and
 * events to the harness's bindings, where the real main-process IPC handlers answer. A
 * stream's MessagePort stays in the page; the harness posts main's messages into it.
 */
import { decodeIpc, encodeIpc } from './ipc-wire';

type Listener = (event: unknown, payload: unknown) => void;

interface HarnessWindow {
  __bdInvoke(channel: string, args: string): Promise<string>;
  __bdStreamOpen(id: number, channel: string, payload: string): Promise<void>;
  __bdPortMessage(id: number, data: string): Promise<void>;
  __bdFromMain: {
    port(id: number, data: string): void;
    closePort(id: number): void;
    event(name: string, payload: string): void;
  };
}

const w = window as unknown as HarnessWindow;
const ports = new Map<number, MessagePort>();
const listeners = new Map<string, Set<Listener>>();
let nextPortId = 1;

w.__bdFromMain = {
  port(id, data) {
    ports.get(id)?.postMessage(decodeIpc(data));
  },
  closePort(id) {
    ports.get(id)?.close();
    ports.delete(id);
  },
  event(name, payload) {
    for (const fn of listeners.get(name) ?? []) fn({}, decodeIpc(payload));
  },
};

export const contextBridge = {
  exposeInMainWorld(key: string, api: unknown): void {
    Object.defineProperty(window, key, { value: api, enumerable: false, configurable: false, writable: false });
  },
};

export const ipcRenderer = {
  async invoke(channel: string, ...args: unknown[]): Promise<unknown> {
    return decodeIpc(await w.__bdInvoke(channel, encodeIpc(args)));
  },
  postMessage(channel: string, payload: unknown, transfer: MessagePort[] = []): void {
    const port = transfer[0];
    if (!port) return;
    const id = nextPortId++;
    ports.set(id, port);
    port.onmessage = (e: MessageEvent) => void w.__bdPortMessage(id, encodeIpc(e.data));
    void w.__bdStreamOpen(id, channel, encodeIpc(payload));
  },
  on(event: string, fn: Listener): void {
    let set = listeners.get(event);
    if (!set) listeners.set(event, (set = new Set()));
    set.add(fn);
  },
  removeListener(event: string, fn: Listener): void {
    listeners.get(event)?.delete(fn);
  },
};
