/**
 * Hosts the embedded engine for the desktop app: loopback only, a free port, and a per-launch
 * admin key (`ephemeralAdminKey`) that exists only while the app runs, so the desktop never
 * holds a long-lived key for its own engine. `stop()` ends every session (and so every
 * browser) before the app quits; it is idempotent and safe to call while starting.
 */
import { createEngine as defaultCreateEngine, type Engine } from '../engine/engine.js';
import type { EngineOptions } from '../engine/config.js';
import type { SecretKeyProvider } from '../engine/domain/secrets/secret-key-provider.js';

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
}

export interface RunningEngine {
  url: string;
  apiKey: string;
}

export class EngineHost {
  private engine: Engine | undefined;
  private starting: Promise<RunningEngine> | undefined;
  private running: RunningEngine | null = null;
  private stopping: Promise<void> | undefined;

  constructor(private readonly opts: EngineHostOptions) {}

  /** The running engine's address and launch key, or null. */
  current(): RunningEngine | null {
    return this.running;
  }

  start(): Promise<RunningEngine> {
    if (this.stopping) return Promise.reject(new Error('the engine host is stopping'));
    this.starting ??= (async () => {
      const create = this.opts.createEngine ?? ((o: EngineOptions) => defaultCreateEngine(o));
      const engine = create({
        dataDir: this.opts.dataDir,
        host: '127.0.0.1',
        port: 0,
        ephemeralAdminKey: true,
        // Its pages may reach this machine (loopback and its own addresses; a server's default refuses both): the operator
        // is the machine's own user, and automating a local dev server is much of the point here.
        egressLoopback: true,
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
      const { url } = await engine.start();
      if (!engine.launchApiKey) throw new Error('the engine did not issue a launch key');
      this.running = { url, apiKey: engine.launchApiKey };
      return this.running;
    })();
    return this.starting;
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.starting?.catch(() => {});
      this.running = null;
      await this.engine?.stop();
    })();
    return this.stopping;
  }
}
