/** Types of frame-channel.mjs (plain JavaScript so it runs under bare `node` inside the jails). */
import type { Duplex } from 'node:stream';

export const HEADER_BYTES: number;
export const MAX_FRAME_BYTES: number;
export const CHANNEL_FD: number;
export class FrameError extends Error {}
export function encodeFrame(message: unknown, maxBytes?: number): Buffer;
export class FrameDecoder {
  readonly maxBytes: number;
  readonly buffered: number;
  constructor(maxBytes: number);
  push(chunk: Buffer): unknown[];
}
export interface ParentChannel {
  limit(bytes: number): void;
  send(message: unknown, done?: (err?: Error | null) => void): void;
  sendOr(message: unknown, instead: (err: FrameError) => unknown, done?: (err?: Error | null) => void): void;
}
export function parentChannel(onMessage: (message: unknown) => void, o?: { stream?: Duplex; onGone?: (code: number) => void }): ParentChannel;
