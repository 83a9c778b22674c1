/**
 * The engine's end of the channel to a child that runs tenant code (executors, the REPL, the
 * WebMCP tool runner, app processes): frames of length-prefixed JSON on a plain pipe
 * (frame-channel.mjs), read as untrusted input. The tenant's code shares the child with the
 * runner's own code and can write any bytes to the pipe, so every message is checked against
 * the schema of what that kind of runner may say, after a size check on its header. A frame over
 * the limit, bytes that are no JSON, a message of no known shape, or a handler of the engine
 * throwing on one end the runner (`stop`: its process group is killed) with `failure` saying
 * why; the owner answers its caller with that reason when the child's exit arrives. Nothing a
 * child sends reaches the event loop as an exception.
 */
import type { Duplex } from 'node:stream';
import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { FrameDecoder, encodeFrame } from './frame-channel.mjs';

/** The largest message a runner may send when the engine sets no other (`--runner-message-max-mb`). */
export const DEFAULT_RUNNER_MESSAGE_MAX_BYTES = 32 * 1024 * 1024;
let maxMessageBytes = DEFAULT_RUNNER_MESSAGE_MAX_BYTES;
/**
 * How many messages of the largest size all runners of the engine may have half-sent at once.
 * One message is bounded by the limit above, but a session has up to eleven runners and the engine
 * fifty sessions: without a bound on their sum, tenants holding frames open (a header, then a
 * trickle) could make the engine buffer gigabytes. The runner whose bytes cross it is stopped.
 */
const ENGINE_PENDING_MESSAGES = 8;
/** Bytes all runner channels of this engine hold for messages not yet complete. */
let pendingBytes = 0;

/** Sets the limit, in MiB, for runners started from now on (the engine's config, at start); throws outside 1 to 1024. */
export function configureRunnerMessageLimit(mb: number): void {
  if (!Number.isInteger(mb) || mb < 1 || mb > 1024) throw new Error(`--runner-message-max-mb ${mb} is not a whole number of MiB from 1 to 1024`);
  maxMessageBytes = mb * 1024 * 1024;
}

/** The limit runners started now get (the engine tells each child in its init message). */
export function runnerMessageLimit(): number {
  return maxMessageBytes;
}

/** The most bytes all runners' unfinished messages may hold together (`/healthz` `limits.runner_channel`). */
export function runnerPendingLimit(): number {
  return ENGINE_PENDING_MESSAGES * maxMessageBytes;
}

export class RunnerChannel<S extends TSchema> {
  /** Why this channel ended its runner, once it has. */
  failure?: string;
  private readonly listeners = new Set<(m: Static<S>) => void>();
  private readonly decoder: FrameDecoder;
  /** Bytes this channel counts in the engine's `pendingBytes` (its decoder's unfinished frame). */
  private held = 0;

  /**
   * `what` names the runner in errors ("the code runner"); `stop` ends its process group.
   * `maxBytes`: the largest message accepted (`runnerMessageLimit()` when not given).
   */
  constructor(
    private readonly stream: Duplex,
    private readonly schema: S,
    private readonly o: { what: string; stop: () => void; maxBytes?: number },
  ) {
    this.decoder = new FrameDecoder(o.maxBytes ?? maxMessageBytes);
    stream.on('data', (chunk: Buffer) => this.receive(chunk));
    // A write after the child is gone (EPIPE) or a read error: its exit says the rest.
    stream.on('error', () => {});
    // A child gone mid-message: what its decoder held no longer counts against the engine.
    stream.on('close', () => this.hold(0));
  }

  /** Adds a handler of the runner's messages; answers the function removing it. */
  on(listener: (m: Static<S>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Sends a message to the child; nothing when the channel has ended. Never throws. */
  send(message: object): void {
    if (this.failure !== undefined || this.stream.destroyed || !this.stream.writable) return;
    let frame: Buffer;
    try {
      frame = encodeFrame(message);
    } catch (err) {
      return this.fail(`the engine could not send ${this.o.what} a message (${messageOf(err)}); it was stopped`);
    }
    this.stream.write(frame);
  }

  /** Ends the runner (once) for `reason`, which becomes `failure`. */
  fail(reason: string): void {
    if (this.failure !== undefined) return;
    this.failure = reason;
    this.hold(0);
    this.listeners.clear();
    this.stream.destroy();
    this.o.stop();
  }

  /**
   * `fn` made safe as an event handler of the runner's process (exit, error): a throw ends the
   * runner with a reason instead of reaching the event loop.
   */
  guard<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void {
    return (...args: A) => {
      try {
        fn(...args);
      } catch (err) {
        this.fail(`the engine failed handling ${this.o.what} (${messageOf(err)}); it was stopped`);
      }
    };
  }

  private hold(bytes: number): void {
    pendingBytes += bytes - this.held;
    this.held = bytes;
  }

  private receive(chunk: Buffer): void {
    if (this.failure !== undefined) return;
    let messages: unknown[];
    try {
      messages = this.decoder.push(chunk);
    } catch (err) {
      return this.fail(`${this.o.what} sent an invalid message and was stopped (${messageOf(err)})`);
    }
    this.hold(this.decoder.buffered);
    if (pendingBytes > runnerPendingLimit())
      return this.fail(
        `${this.o.what} was stopped: the engine's runners hold ${runnerPendingLimit()} bytes of unfinished messages, their limit together (${ENGINE_PENDING_MESSAGES} × --runner-message-max-mb)`,
      );
    for (const m of messages) {
      if (this.failure !== undefined) return;
      if (!Value.Check(this.schema, m)) return this.fail(`${this.o.what} sent an invalid message and was stopped (${shapeOf(m)})`);
      for (const listener of [...this.listeners]) {
        try {
          listener(m);
        } catch (err) {
          return this.fail(`the engine failed on a message of ${this.o.what} (${messageOf(err)}); it was stopped`);
        }
      }
    }
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A few words on what an unexpected message was (never its content: it may be large). */
function shapeOf(m: unknown): string {
  if (m === null || typeof m !== 'object' || Array.isArray(m)) return `a message of type ${m === null ? 'null' : Array.isArray(m) ? 'array' : typeof m}`;
  const type = (m as { type?: unknown }).type;
  return typeof type === 'string' ? `a "${type.slice(0, 40)}" message of an unexpected shape` : 'a message of an unknown kind';
}
