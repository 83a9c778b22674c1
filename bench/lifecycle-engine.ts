/**
 * What bench:lifecycle's modes share: an engine in-process (its own data dir, an admin key,
 * the official SDK pointed at it), the providers its rows run (`POST /browsers`, pool
 * acquire/release), its standby counters, and the options read from argv or the environment.
 */
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Kernel from '@onkernel/sdk';
import { createEngine } from '../src/engine/index.js';
import type { EngineOptions } from '../src/engine/config.js';
import type { Provider } from './hello-browser.js';
import { startEngineChild } from './engine-process.js';

export function opt(name: string, env: string, dflt: string): string {
  const a = process.argv.find((x) => x.startsWith(`--${name}=`));
  return a ? a.slice(name.length + 3) : (process.env[env] ?? dflt);
}

export const LOCAL_CHROMIUM = '/usr/bin/chromium';

/** What /healthz says about the standby (the fields the bench reads; an older engine may lack some). */
export interface StandbyHealth {
  launching: number;
  ready: number;
  claimed: number;
  adopted?: number;
  cold: number;
  budget?: { count: number; memory_mb: number; launches?: number; launches_min?: number; launches_max?: number };
  shapes: Array<{ ready: number; target: number }>;
}

export interface BenchEngine {
  client: Kernel;
  url: string;
  /** The engine's process when it runs in its own (`--engine=process`). */
  pid?: number;
  stop(): Promise<void>;
  standby(): Promise<StandbyHealth | undefined>;
}

/**
 * Where the engine runs (`--engine=` or BENCH_ENGINE): `process` (default), its own process as
 * `npm run serve` starts it, so the client (SDK, Playwright) and the engine do not share one event
 * loop, as a user's client and the service do not; `in-process`, this process (what the bench did
 * before 2026-12-02: the work an engine does right after an answer then delays the client's read).
 */
export const ENGINE_MODE = opt('engine', 'BENCH_ENGINE', 'process');

/**
 * An engine as `npm run serve` starts it, plus `extra`. `egressLoopback`: the page is a local
 * server on 127.0.0.1, which a server engine's pages may not reach by default. `extra` is
 * in-process only: the engine in its own process gets default settings.
 */
export async function startEngine(extra: Partial<EngineOptions> = {}): Promise<BenchEngine> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'bd-bench-lc-'));
  let url: string;
  let apiKey: string;
  let stop: () => Promise<void>;
  let pid: number | undefined;
  if (ENGINE_MODE === 'process') {
    if (Object.keys(extra).length) throw new Error('startEngine: options other than the defaults need --engine=in-process');
    const child = await startEngineChild(dataDir, ['--egress-allow-loopback']);
    ({ url, apiKey, pid } = child);
    stop = () => child.stop();
  } else if (ENGINE_MODE === 'in-process') {
    const engine = createEngine({ dataDir, port: 0, logLevel: 'silent', print: () => {}, egressLoopback: true, ...extra } as EngineOptions);
    ({ url } = await engine.start());
    apiKey = (await fsp.readFile(path.join(dataDir, 'admin-api-key'), 'utf8')).trim();
    stop = () => engine.stop();
  } else throw new Error(`--engine must be process or in-process, not '${ENGINE_MODE}'`);
  return {
    client: new Kernel({ apiKey, baseURL: url }),
    url,
    pid,
    async standby() {
      const h = (await (await fetch(`${url}/healthz`)).json()) as { standby?: StandbyHealth };
      return h.standby;
    },
    async stop() {
      await stop();
      await fsp.rm(dataDir, { recursive: true, force: true });
    },
  };
}

export function sdkProvider(name: string, client: Kernel): Provider {
  return {
    name,
    async create() {
      const b = await client.browsers.create({ headless: true });
      return { id: b.session_id, cdpUrl: b.cdp_ws_url };
    },
    release: (id) => client.browsers.deleteByID(id),
  };
}

/** A pool of `size` (refilled as fast as it can), with acquire/release as the SDK does them; `settle` waits until it is full. */
export async function poolProvider(client: Kernel, size: number): Promise<Provider & { dispose(): Promise<void> }> {
  const pool = await client.browserPools.create({ size, headless: true, fill_rate_per_minute: 10_000, timeout_seconds: 3600 } as never);
  const settle = async () => {
    const deadline = Date.now() + 120_000;
    while ((await client.browserPools.retrieve(pool.id)).available_count < size) {
      if (Date.now() > deadline) throw new Error('pool did not refill within 120 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return {
    name: 'Browserdeck pool acquire/release',
    async create() {
      const b = await client.browserPools.acquire(pool.id, { acquire_timeout_seconds: 60 });
      return { id: b.session_id, cdpUrl: b.cdp_ws_url };
    },
    release: (id) => client.browserPools.release(pool.id, { session_id: id }),
    settle,
    dispose: () => client.browserPools.delete(pool.id, { force: true } as never),
  };
}
