/**
 * Hosts the embedded engine for the desktop app: loopback only, a per-launch admin key
 * (`ephemeralAdminKey`) that exists only while the engine runs, so the desktop never holds a
 * long-lived key for its own engine. The engine can be stopped and started again (tray menu,
 * settings applied on restart): each start reads `settings()` afresh. `close()` ends every
 * session (and so every browser) before the app quits; it is final, idempotent and safe to call
 * while starting. Starts and stops are serialised: one runs at a time, in call order.
 */
import { createEngine as defaultCreateEngine, type Engine } from '../engine/engine.js';
import type { EngineOptions } from '../engine/config.js';
import type { SecretKeyProvider } from '../engine/domain/secrets/secret-key-provider.js';

/** What the operator may change from the settings page (desktop-settings.ts), applied at the next start. */
export type HostSettings = Pick<EngineOptions, 'port' | 'dataDir' | 'egressLoopback' | 'standby' | 'standbyMemoryMb'>;

export interface EngineHostOptions {
  dataDir: string;
  /** Built renderer, so the local engine also serves the web console. */
  uiDir?: string;
  chromiumPath?: string;
  logLevel?: string;
  log?: (line: string) => void;
  createEngine?: (opts: EngineOptions) => Engine;
  /** The engine's secret key source; the app passes its OS-keychain provider (secret-key-provider.ts). */
  secretKeyProvider?: SecretKeyProvider;
  /** The bundle's copy of the engine's child scripts (out/main/engine-assets, unpacked from the asar). */
  assetsRoot?: string;
  /** The runtime for the engine's children: in the app, Electron's binary run as Node. */
  childNode?: EngineOptions['childNode'];
  /** The operator's settings, read at each start; unset fields keep the defaults below. */
  settings?: () => Partial<HostSettings>;
  /** Told of every state change (tray, renderer). */
  onState?: (state: EngineState) => void;
}

export interface RunningEngine {
  url: string;
  apiKey: string;
}

export type EngineStatus = 'stopped' | 'starting' | 'running' | 'stopping' | 'error';

export interface EngineState {
  status: EngineStatus;
  /** Why the last start failed (status `error`). */
  error?: string;
  url?: string;
  dataDir?: string;
}

export class EngineHost {
  private engine: Engine | undefined;
  private running: RunningEngine | null = null;
  private state: EngineState = { status: 'stopped' };
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(private readonly opts: EngineHostOptions) {}

  /** The running engine's address and launch key, or null. */
  current(): RunningEngine | null {
    return this.running;
  }

  /** The running engine itself (sessions, change bus), or undefined. */
  currentEngine(): Engine | undefined {
    return this.running ? this.engine : undefined;
  }

  status(): EngineState {
    return this.state;
  }

  /** Starts the engine unless it runs; resolves with its address, rejects with why it did not start. */
  start(): Promise<RunningEngine> {
    return this.serial(async () => {
      if (this.closed) throw new Error('the engine host is stopping');
      if (this.running) return this.running;
      return this.startNow();
    });
  }

  /** Stops the engine (ending every session); it may be started again. */
  stopEngine(): Promise<void> {
    return this.serial(() => this.stopNow());
  }

  /** Stops and starts again, with the settings as they are now. */
  restart(): Promise<RunningEngine> {
    return this.serial(async () => {
      if (this.closed) throw new Error('the engine host is stopping');
      await this.stopNow();
      return this.startNow();
    });
  }

  /** Final stop at app quit: every session and browser ends first. Idempotent. */
  stop(): Promise<void> {
    this.closed = true;
    this.closing ??= this.serial(() => this.stopNow());
    return this.closing;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => {});
    return next;
  }

  private setState(state: EngineState): void {
    this.state = state;
    this.opts.onState?.(state);
  }

  private async startNow(): Promise<RunningEngine> {
    const s = this.opts.settings?.() ?? {};
    const dataDir = s.dataDir || this.opts.dataDir;
    this.setState({ status: 'starting', dataDir });
    const create = this.opts.createEngine ?? ((o: EngineOptions) => defaultCreateEngine(o));
    const engine = create({
      dataDir,
      host: '127.0.0.1',
      // 0: a free port at each start (the default); the settings page may fix one.
      port: s.port ?? 0,
      ephemeralAdminKey: true,
      // Its pages may reach this machine (loopback and its own addresses; a server's default refuses both): the operator
      // is the machine's own user, and automating a local dev server is much of the point here.
      egressLoopback: s.egressLoopback ?? true,
      ...(s.standby !== undefined ? { standby: s.standby } : {}),
      ...(s.standbyMemoryMb !== undefined ? { standbyMemoryMb: s.standbyMemoryMb } : {}),
      uiDir: this.opts.uiDir,
      chromiumPath: this.opts.chromiumPath,
      assetsRoot: this.opts.assetsRoot,
      childNode: this.opts.childNode,
      logLevel: this.opts.logLevel ?? 'warn',
      // The first-start admin key is written to the data dir; the app itself uses the launch key.
      print: this.opts.log ?? (() => {}),
      ...(this.opts.secretKeyProvider ? { identity: { secretKeyProvider: this.opts.secretKeyProvider } } : {}),
    });
    this.engine = engine;
    try {
      const { url } = await engine.start();
      if (!engine.launchApiKey) throw new Error('the engine did not issue a launch key');
      this.running = { url, apiKey: engine.launchApiKey };
      this.setState({ status: 'running', url, dataDir });
      return this.running;
    } catch (err) {
      // Whatever the failed start took (store, port, the data dir's lock) is released before the next try.
      await engine.stop().catch(() => {});
      this.engine = undefined;
      this.setState({ status: 'error', error: err instanceof Error ? err.message : String(err), dataDir });
      throw err;
    }
  }

  private async stopNow(): Promise<void> {
    const engine = this.engine;
    if (!engine) return;
    this.running = null;
    this.setState({ ...this.state, status: 'stopping' });
    await engine.stop();
    this.engine = undefined;
    this.setState({ status: 'stopped', dataDir: this.state.dataDir });
  }
}
