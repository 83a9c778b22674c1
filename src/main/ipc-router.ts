/**
 * The IPC gate, independent of Electron: every invoke names a channel of the contract, comes
 * from a trusted frame (the app's own main frame), and carries arguments that match the
 * channel's schema — otherwise the handler never runs. Results and failures cross as
 * `{result}|{error}`; the renderer rebuilds errors from the Error object.
 */
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { TSchema } from '@sinclair/typebox';
import {
  invokeArgs,
  StreamRequestSchema,
  type InvokeArgs,
  type InvokeChannel,
  type InvokeResult,
  type IpcError,
  type IpcResult,
  type StreamRequest,
} from '../shared/ipc/contract.js';
import { toIpcError } from './control-plane.js';

export type InvokeHandlers = { [C in InvokeChannel]: (...args: InvokeArgs<C>) => Promise<InvokeResult<C>> | InvokeResult<C> };

/** What main knows about the frame that sent a message (Electron's WebFrameMain, narrowed). */
export interface SenderFrame {
  url: string;
  parent: unknown;
}

export type FrameCheck = (frame: SenderFrame | null | undefined) => boolean;

/**
 * Trusts only a top-level frame showing the app itself: the same file (file://, ignoring the
 * hash route) or, in development, the same origin as the dev server.
 */
export function appFrameCheck(appUrl: string): FrameCheck {
  const app = new URL(appUrl);
  return (frame) => {
    if (!frame || frame.parent) return false;
    let u: URL;
    try {
      u = new URL(frame.url);
    } catch {
      return false;
    }
    if (app.protocol === 'file:') return u.protocol === 'file:' && u.pathname === app.pathname;
    return u.origin === app.origin;
  };
}

const compiled = new Map<string, TypeCheck<TSchema>>();
function checker(schema: TSchema, key: string): TypeCheck<TSchema> {
  let c = compiled.get(key);
  if (!c) compiled.set(key, (c = TypeCompiler.Compile(schema)));
  return c;
}

function validationError(check: TypeCheck<TSchema>, value: unknown, what: string): { error: IpcError } {
  const first = check.Errors(value).First();
  const where = first?.path ? ` at ${first.path}` : '';
  return { error: { name: 'ValidationError', message: `invalid ${what}${where}: ${first?.message ?? 'does not match the contract'}` } };
}

const untrusted: { error: IpcError } = { error: { name: 'ForbiddenSender', message: 'IPC refused: the sender is not the app window' } };

export function isInvokeChannel(channel: string): channel is InvokeChannel {
  return Object.prototype.hasOwnProperty.call(invokeArgs, channel);
}

export function createInvokeRouter(handlers: InvokeHandlers, trusted: FrameCheck) {
  return async function dispatch(channel: string, frame: SenderFrame | null | undefined, args: unknown[]): Promise<IpcResult<unknown>> {
    if (!trusted(frame)) return untrusted;
    if (!isInvokeChannel(channel)) return { error: { name: 'ValidationError', message: `unknown IPC channel: ${channel}` } };
    const check = checker(invokeArgs[channel], channel);
    if (!check.Check(args)) return validationError(check, args, `arguments for ${channel}`);
    try {
      const handler = handlers[channel] as (...a: unknown[]) => unknown;
      return { result: (await handler(...args)) ?? null };
    } catch (err) {
      return { error: toIpcError(err) };
    }
  };
}

/** Validates a stream-open message; returns the request or the error to report on the port. */
export function checkStreamOpen(
  frame: SenderFrame | null | undefined,
  payload: unknown,
  trusted: FrameCheck,
): { request: StreamRequest } | { error: IpcError } {
  if (!trusted(frame)) return untrusted;
  const check = checker(StreamRequestSchema, 'stream:open');
  if (!check.Check(payload)) return validationError(check, payload, 'stream request');
  return { request: payload as StreamRequest };
}
