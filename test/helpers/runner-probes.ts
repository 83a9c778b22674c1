/**
 * The bytes tenant code writes to its runner's channel (fd 3) to try the engine's end of it
 * (runtime/sandbox/runner-channel.ts), each with the reason the engine gives for stopping that
 * runner. Shared by the code-runner and the app channel tests.
 */
import { encodeFrame } from '../../src/engine/runtime/sandbox/frame-channel.mjs';

/** A frame as the channel carries it (4-byte big-endian length, then the JSON), as hex. */
const frame = (value: unknown): string => encodeFrame(value).toString('hex');

export const RAW_PROBES: Array<[string, string, RegExp]> = [
  ['garbage bytes', Buffer.from('\x00\x00\x00\x08garbage!').toString('hex'), /not JSON/],
  ['an oversized frame header', '7fffffff', /2147483647 bytes is over the \d+-byte limit/],
  ['a frame of null', frame(null), /type null/],
  ["a frame of Node's internal NODE_HANDLE_ACK", frame({ cmd: 'NODE_HANDLE_ACK' }), /unknown kind/],
];

/** An app's answer of the wrong shape, forged on its channel. */
export const FORGED_APP_ANSWER: [string, string, RegExp] = ['a forged answer of the wrong shape', frame({ answer: { ok: true, apps: 5 } }), /unknown kind/];
