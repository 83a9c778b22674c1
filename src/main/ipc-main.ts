/**
 * Electron adapter of the IPC gate: registers one `ipcMain.handle` per contract channel
 * (dispatching through the validating router with the sender's frame) and accepts stream
 * requests that arrive with a MessagePort, piping the control plane's SSE frames into it
 * until the server ends the stream or the renderer sends `{type:'dispose'}` / closes the port.
 */
import { ipcMain, type IpcMainEvent, type MessagePortMain } from 'electron';
import { invokeArgs, STREAM_OPEN_CHANNEL, type StreamControl, type StreamMessage } from '../shared/ipc/contract.js';
import { checkStreamOpen, createInvokeRouter, type FrameCheck, type InvokeHandlers } from './ipc-router.js';
import type { ControlPlane } from './control-plane.js';

export function registerIpc(handlers: InvokeHandlers, controlPlane: ControlPlane, trusted: FrameCheck): () => void {
  const dispatch = createInvokeRouter(handlers, trusted);
  const channels = Object.keys(invokeArgs);
  for (const channel of channels) {
    ipcMain.handle(channel, (event, ...args: unknown[]) => dispatch(channel, event.senderFrame, args));
  }
  const onStream = (event: IpcMainEvent, payload: unknown): void => {
    const port: MessagePortMain | undefined = event.ports[0];
    if (!port) return;
    const post = (m: StreamMessage): void => port.postMessage(m);
    const checked = checkStreamOpen(event.senderFrame, payload, trusted);
    if ('error' in checked) {
      post({ type: 'end', error: checked.error });
      port.close();
      return;
    }
    const sub = controlPlane.stream(checked.request, {
      frame: (data) => post({ type: 'frame', data }),
      end: (error) => {
        post({ type: 'end', error });
        port.close();
      },
    });
    port.on('message', (e) => {
      if ((e.data as StreamControl | undefined)?.type === 'dispose') sub.dispose();
    });
    port.on('close', () => sub.dispose());
    port.start();
  };
  ipcMain.on(STREAM_OPEN_CHANNEL, onStream);
  return () => {
    for (const channel of channels) ipcMain.removeHandler(channel);
    ipcMain.removeListener(STREAM_OPEN_CHANNEL, onStream);
  };
}
