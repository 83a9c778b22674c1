/**
 * The `browserdeck` command line end to end: the CLI runs as a subprocess against one real
 * engine, one browser session shared by the session commands. Each command's `--json` output is
 * parsed; exit codes are 0 ok, 1 the engine refused, 2 usage; errors are one line; the API key
 * never appears in any output. Most commands run the CLI's esbuild bundle (cli-bundle.ts: a
 * third of tsx's CPU per process); one error (an engine that cannot be reached: an exception
 * from deep in the SDK, one line all the same) and login run `bin/browserdeck.mjs` itself, as
 * `npx browserdeck` does (so does test/cli/cli-mcp-bridge.test.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/engine.js';
import { BIN, baseEnv, runCli, type CliResult } from './run-cli.js';
import { buildCliBundle, type CliBundle } from './cli-bundle.js';

let te: TestEngine;
let tmp: string;
let env: NodeJS.ProcessEnv;
let bundle: CliBundle;
const outputs: CliResult[] = [];

beforeAll(async () => {
  [te, bundle] = await Promise.all([startTestEngine(), buildCliBundle()]);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bd-cli-'));
  env = { ...baseEnv(path.join(tmp, 'config')), BROWSERDECK_URL: te.url, KERNEL_API_KEY: te.adminKey };
});

afterAll(async () => {
  await te?.stop();
  bundle?.remove();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** Runs the CLI (its bundle, or with `bin` bin/browserdeck.mjs) in `tmp`; every output is checked for the key at the end. */
async function cli(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; bin?: boolean } = {}): Promise<CliResult> {
  const r = await runCli(args, { entry: opts.bin ? BIN : bundle.entry, env: opts.env ?? env, input: opts.input, cwd: tmp });
  outputs.push(r);
  return r;
}

/** Runs a `--json` command that must succeed and parses its stdout. */
async function json<T>(args: string[], opts: { input?: string } = {}): Promise<T> {
  const r = await cli(['--json', ...args], opts);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as T;
}

const oneLine = (s: string) => s.trim().split('\n').length === 1;
/** A test that runs several CLI processes one after another: each starts Node and the SDK (and tsx for `bin`). */
const SLOW = 240_000;

describe('usage and errors', () => {
  it('exits 2 with one line for a usage error, naming the way out', async () => {
    const cases = [
      ['browsers', 'bogus'],
      ['browsers', 'create', '--timeout', 'abc'],
      ['mcp', 'install', '--target', 'emacs'],
      ['invoke', 'app'],
      ['invoke', 'app', 'action', '--payload', 'not json'],
      ['pools', 'create', 'no-size'],
    ];
    const results = await Promise.all(cases.map((args) => cli(args)));
    results.forEach((r, i) => {
      expect(r.code, cases[i].join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(oneLine(r.stderr), r.stderr).toBe(true);
    });
  });

  it('no key: exit 2; a bad key or no engine: exit 1; one line each that names the fix', async () => {
    const [noKey, badKey, noEngine] = await Promise.all([
      cli(['browsers', 'list'], { env: { ...env, KERNEL_API_KEY: '' } }),
      cli(['--json', 'browsers', 'list'], { env: { ...env, KERNEL_API_KEY: 'bd_wrong' } }),
      cli(['browsers', 'list'], { env: { ...env, BROWSERDECK_URL: 'http://127.0.0.1:9' }, bin: true }),
    ]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr.trim()).toBe('browserdeck: no API key: set KERNEL_API_KEY or run `browserdeck login`');
    expect(badKey.code).toBe(1);
    expect(badKey.stdout).toBe('');
    expect(oneLine(badKey.stderr)).toBe(true);
    expect(badKey.stderr).toMatch(/HTTP 401\): check KERNEL_API_KEY or run `browserdeck login`/);
    expect(badKey.stderr).not.toContain('bd_wrong');
    expect(noEngine.code).toBe(1);
    expect(noEngine.stderr.trim()).toBe('browserdeck: cannot reach http://127.0.0.1:9: is it running? (set BROWSERDECK_URL or run `browserdeck login`)');
  });
});

describe('browsers', () => {
  let id: string;

  it(
    'create --json answers the session; list and get find it',
    async () => {
      const b = await json<{ session_id: string; cdp_ws_url: string; headless: boolean }>([
        'browsers',
        'create',
        '--headless',
        '--name',
        'cli-one',
        '--timeout',
        '120',
      ]);
      id = b.session_id;
      expect(b.headless).toBe(true);
      expect(b.cdp_ws_url).toMatch(/^ws/);
      const [list, got, table] = await Promise.all([
        json<Array<{ session_id: string; name?: string }>>(['browsers', 'list']),
        json<{ session_id: string; name: string }>(['browsers', 'get', 'cli-one']),
        // For people: a table with the id in it.
        cli(['browsers', 'list']),
      ]);
      expect(list.map((x) => x.session_id)).toContain(id);
      expect(got).toMatchObject({ session_id: id, name: 'cli-one' });
      expect(table.stdout.split('\n')[0]).toMatch(/^SESSION ID\s+NAME/);
      expect(table.stdout).toContain(id);
    },
    SLOW,
  );

  it('view prints the live-view URL of the session', async () => {
    const r = await cli(['browsers', 'view', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(new RegExp(`^${te.url}/browsers/${id}/live\\?`));
  });

  it('exec runs in the jail: --json decodes the output; for people the exit code passes through', async () => {
    const [r, failed] = await Promise.all([
      json<{ exit_code: number; stdout: string }>(['browsers', 'exec', id, '--', 'sh', '-c', 'echo hello from $0; echo oops >&2']),
      cli(['browsers', 'exec', id, '--', 'sh', '-c', 'echo partial; exit 3']),
    ]);
    expect(r).toMatchObject({ exit_code: 0, stdout: 'hello from sh\n', stderr: 'oops\n' });
    expect(failed.code).toBe(3);
    expect(failed.stdout).toBe('partial\n');
  });

  it(
    'fs write, ls, cat and rm',
    async () => {
      await json(['browsers', 'fs', 'mkdir', id, '/tmp/cli-dir']);
      expect(await json(['browsers', 'fs', 'write', id, '/tmp/cli-dir/note.txt'], { input: 'written by the cli\n' })).toEqual({
        path: '/tmp/cli-dir/note.txt',
        bytes: 19,
      });
      const ls = await json<Array<{ name: string; size_bytes: number }>>(['browsers', 'fs', 'ls', id, '/tmp/cli-dir']);
      expect(ls).toEqual([expect.objectContaining({ name: 'note.txt', size_bytes: 19 })]);
      expect(await json(['browsers', 'fs', 'cat', id, '/tmp/cli-dir/note.txt'])).toEqual({ path: '/tmp/cli-dir/note.txt', content: 'written by the cli\n' });
      expect(await json(['browsers', 'fs', 'rm', id, '/tmp/cli-dir/note.txt'])).toEqual({ deleted: '/tmp/cli-dir/note.txt' });
    },
    SLOW,
  );

  it('logs --json: one log event per line, ending when the log has been read', async () => {
    const r = await cli(['--json', 'browsers', 'logs', id, '--service', 'session']);
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; message: string });
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.event === 'log')).toBe(true);
  });

  it('delete ends it; get then exits 1 with the engine error', async () => {
    expect(await json(['browsers', 'delete', id])).toEqual({ deleted: [id] });
    const r = await cli(['browsers', 'get', id]);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(true);
    expect(r.stderr).toMatch(/HTTP 404/);
  });
});

describe('deploy, invoke, logs', () => {
  const appDir = () => path.join(tmp, 'cli-app');

  it(
    'deploy <dir> zips it and follows the deployment to running',
    async () => {
      fs.mkdirSync(appDir(), { recursive: true });
      fs.writeFileSync(
        path.join(appDir(), 'index.ts'),
        [
          "import Kernel from '@onkernel/sdk';",
          "const app = new Kernel().app('cli-app');",
          "console.log('cli-app loading');",
          "app.action('echo', async (_ctx: unknown, payload?: unknown) => { console.log('echo called'); return { got: payload }; });",
          "app.action('fail', async (_ctx: unknown) => { throw new Error('cli sample failure'); });",
        ].join('\n'),
      );
      const r = await json<{ deployment: { status: string }; apps: Array<{ app_name: string; actions: Array<{ name: string }> }> }>([
        'deploy',
        appDir(),
        '--version',
        '1',
      ]);
      expect(r.deployment.status).toBe('running');
      expect(r.apps.map((a) => a.app_name)).toEqual(['cli-app']);
      expect(r.apps[0].actions.map((a) => a.name).sort()).toEqual(['echo', 'fail']);
      // For people: the log and states on stderr, the outcome on stdout; a second deploy of the same version fails (exit 1).
      const again = await cli(['deploy', appDir(), '--version', '1']);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('state: failed');
    },
    SLOW,
  );

  it(
    'invoke <app> <action> --payload follows the invocation and prints its output',
    async () => {
      const inv = await json<{ status: string; output: string }>(['invoke', 'cli-app', 'echo', '--version', '1', '--payload', '{"x":1}']);
      expect(inv.status).toBe('succeeded');
      expect(JSON.parse(inv.output)).toEqual({ got: { x: 1 } });
      const human = await cli(['invoke', 'cli-app', 'echo', '--version', '1', '--payload', '{"y":2}']);
      expect(human.code, human.stderr).toBe(0);
      expect(JSON.parse(human.stdout)).toEqual({ got: { y: 2 } });
      expect(human.stderr).toContain('echo called');
      const failed = await cli(['invoke', 'cli-app', 'fail', '--version', '1']);
      expect(failed.code).toBe(1);
      expect(failed.stderr.trim().split('\n').at(-1)).toMatch(/^browserdeck: invocation \S+ failed: .*cli sample failure/);
    },
    SLOW,
  );

  it("logs <app> prints the app's deployment log", async () => {
    const r = await cli(['--json', 'logs', 'cli-app', '--version', '1']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; message: string });
    expect(lines.map((l) => l.message)).toContain('cli-app loading');
  });
});

describe('profiles and pools', () => {
  it(
    'profiles list, get, download and delete',
    async () => {
      const p = await te.client.profiles.create({ name: 'cli-profile' });
      expect((await json<Array<{ id: string }>>(['profiles', 'list'])).map((x) => x.id)).toContain(p.id);
      expect(await json(['profiles', 'get', 'cli-profile'])).toMatchObject({ id: p.id, name: 'cli-profile' });
      const dl = await json<{ file: string; bytes: number }>(['profiles', 'download', 'cli-profile', '--format', 'tar', '-o', 'profile.tar']);
      expect(dl.bytes).toBe(fs.statSync(path.join(tmp, 'profile.tar')).size);
      expect(dl.bytes).toBeGreaterThan(0);
      expect(await json(['profiles', 'delete', 'cli-profile'])).toEqual({ deleted: 'cli-profile' });
      await expect(te.client.profiles.retrieve('cli-profile')).rejects.toThrow(/404/);
    },
    SLOW,
  );

  it(
    'pools create, list, get and delete',
    async () => {
      const created = await json<{ id: string; name: string; browser_pool_config: { size: number } }>([
        'pools',
        'create',
        'cli-pool',
        '--size',
        '1',
        '--headless',
      ]);
      expect(created).toMatchObject({ name: 'cli-pool', browser_pool_config: { size: 1 } });
      expect((await json<Array<{ id: string }>>(['pools', 'list'])).map((x) => x.id)).toContain(created.id);
      expect(await json(['pools', 'get', 'cli-pool'])).toMatchObject({ id: created.id });
      expect(await json(['pools', 'delete', 'cli-pool', '--force'])).toEqual({ deleted: 'cli-pool' });
      await expect(te.client.browserPools.retrieve('cli-pool')).rejects.toThrow(/404/);
    },
    SLOW,
  );
});

describe('login', () => {
  it(
    'stores URL and key 0600 from stdin, and later commands use them',
    async () => {
      const configHome = path.join(tmp, 'login-config');
      const loginEnv = baseEnv(configHome);
      const r = await cli(['--url', te.url, '--json', 'login'], { env: loginEnv, input: `${te.adminKey}\n`, bin: true });
      expect(r.code, r.stderr).toBe(0);
      const file = path.join(configHome, 'browserdeck', 'config.json');
      expect(JSON.parse(r.stdout)).toEqual({ url: te.url, config_path: file });
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ url: te.url, api_key: te.adminKey });
      // No URL or key in the environment now: both come from the file.
      expect(Array.isArray(await cli(['--json', 'browsers', 'list'], { env: loginEnv }).then((x) => JSON.parse(x.stdout) as unknown))).toBe(true);
      // A wrong key is refused before anything is stored.
      const bad = await cli(['--url', te.url, 'login'], { env: baseEnv(path.join(tmp, 'login-bad')), input: 'bd_nope\n' });
      expect(bad.code).toBe(1);
      expect(fs.existsSync(path.join(tmp, 'login-bad', 'browserdeck', 'config.json'))).toBe(false);
    },
    SLOW,
  );
});

describe('mcp install', () => {
  const dir = () => path.join(tmp, 'clients');

  it(
    'writes each client config with `browserdeck mcp`, keeping what was there',
    async () => {
      fs.mkdirSync(dir(), { recursive: true });
      fs.writeFileSync(path.join(dir(), 'claude.json'), JSON.stringify({ mcpServers: { other: { command: 'x' } }, theme: 'dark' }));
      fs.writeFileSync(path.join(dir(), 'goose.yaml'), '# my goose\nGOOSE_MODE: auto\nextensions:\n  developer:\n    type: builtin\n    enabled: true\n');
      const files = { claude: 'claude.json', cursor: 'cursor/mcp.json', vscode: 'mcp.json', goose: 'goose.yaml' } as const;
      await Promise.all(
        Object.entries(files).map(async ([target, name]) => {
          const r = await json<{ config_path: string }>(['mcp', 'install', '--target', target, '--config-path', path.join(dir(), name)]);
          expect(r.config_path).toBe(path.join(dir(), name));
        }),
      );
      const claude = JSON.parse(fs.readFileSync(path.join(dir(), files.claude), 'utf8'));
      expect(claude.theme).toBe('dark');
      expect(claude.mcpServers.other).toEqual({ command: 'x' });
      expect(claude.mcpServers.browserdeck).toEqual({
        command: process.execPath,
        args: [BIN, 'mcp'],
        env: { BROWSERDECK_URL: te.url },
      });
      const cursor = JSON.parse(fs.readFileSync(path.join(dir(), files.cursor), 'utf8'));
      expect(cursor.mcpServers.browserdeck.args.at(-1)).toBe('mcp');
      const vscode = JSON.parse(fs.readFileSync(path.join(dir(), files.vscode), 'utf8'));
      expect(vscode.servers.browserdeck).toMatchObject({ type: 'stdio', command: process.execPath });
      const goose = fs.readFileSync(path.join(dir(), files.goose), 'utf8');
      expect(goose).toContain('# my goose');
      const { parse } = await import('yaml');
      const g = parse(goose);
      expect(g.extensions.developer).toEqual({ type: 'builtin', enabled: true });
      expect(g.extensions.browserdeck).toMatchObject({ type: 'stdio', enabled: true, cmd: process.execPath, envs: { BROWSERDECK_URL: te.url } });
      // The key is in none of them.
      for (const name of Object.values(files)) expect(fs.readFileSync(path.join(dir(), name), 'utf8')).not.toContain(te.adminKey);
    },
    SLOW,
  );

  it('refuses a config it cannot parse, and leaves it as it was', async () => {
    const file = path.join(dir(), 'broken.json');
    fs.writeFileSync(file, '{ not json');
    const r = await cli(['mcp', 'install', '--target', 'cursor', '--config-path', file]);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ not json');
  });
});

describe('secrets', () => {
  it('the API key appeared in no output of any command above', () => {
    expect(outputs.length).toBeGreaterThan(25);
    for (const o of outputs) {
      expect(o.stdout).not.toContain(te.adminKey);
      expect(o.stderr).not.toContain(te.adminKey);
    }
  });
});
