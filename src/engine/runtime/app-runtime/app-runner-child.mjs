/**
 * The process an app runs in (forked by app-process.ts, one per deployment check and one per
 * invocation). It receives one job over its channel (a pipe at fd 3 of length-prefixed JSON,
 * ../sandbox/frame-channel.mjs; not Node's IPC, so the app's code finds no `process.send`, and
 * the engine checks whatever reaches it):
 * - `discover`: load the entrypoint and answer the apps and actions it registered with the
 *   official client's app framework (`kernel.app(name).action(name, handler)`);
 * - `invoke`: load the entrypoint, call one action with `(ctx, payload)` and answer its
 *   return value as JSON text, or the error it threw.
 * The SDK keeps its registry in a module-level singleton, once per module flavour (CommonJS
 * `core/app-framework.js`, ESM `core/app-framework.mjs`): both flavours of the copy the app
 * resolves are read, so apps work whichever way they import the SDK. Plain JavaScript so it
 * starts under bare `node`; TypeScript apps get tsx through `--import` from the parent.
 */
import { createRequire, register } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentChannel } from '../sandbox/frame-channel.mjs';

const fallbackParentURL = process.env.BROWSERDECK_APP_FALLBACK_PARENT;
delete process.env.BROWSERDECK_APP_FALLBACK_PARENT;
if (fallbackParentURL) register('./fallback-resolve-hooks.mjs', import.meta.url, { data: { fallbackParentURL } });

// Node 20's fetch ignores HTTP(S)_PROXY, and in the app jail the proxy its helper announces there
// is the only way out: fetch (the SDK's and the app's own) goes through undici's
// EnvHttpProxyAgent, which honours them and NO_PROXY (the engine's address). `proxyTunnel:
// false` sends plain-http requests in absolute form, so a refusal by the egress policy reaches
// the app as the proxy's 403 answer (x-browserdeck-net-error) instead of a failed tunnel.
// undici is the engine's copy, resolved where the SDK fallback resolves.
if (['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'].some((k) => process.env[k])) {
  const { EnvHttpProxyAgent, setGlobalDispatcher } = createRequire(fallbackParentURL ?? import.meta.url)('undici');
  setGlobalDispatcher(new EnvHttpProxyAgent({ proxyTunnel: false }));
}

// In the app jail the engine's public address may be one the jail cannot listen on (another
// machine's, or port 443 behind a TLS front end); its helper then serves the engine on a
// loopback port and names both here. Every TCP connection the app opens to that host and port
// (fetch, the SDK, Playwright's CDP WebSocket) goes to the door instead; TLS still verifies the
// public name, since only the socket's destination changes.
const redirect = /^(.+):(\d+)=127\.0\.0\.1:(\d+)$/.exec(process.env.BROWSERDECK_ENGINE_REDIRECT ?? '');
delete process.env.BROWSERDECK_ENGINE_REDIRECT;
if (redirect) {
  const net = await import('node:net');
  const publicHost = redirect[1].replace(/^\[|\]$/g, '').toLowerCase();
  const publicPort = Number(redirect[2]);
  const doorPort = Number(redirect[3]);
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (...args) {
    // net.connect hands over [options, callback] (normalized); tls.connect an options object.
    const opts = Array.isArray(args[0]) ? args[0][0] : args[0];
    if (
      opts &&
      typeof opts === 'object' &&
      !opts.path &&
      Number(opts.port) === publicPort &&
      String(opts.host ?? 'localhost')
        .replace(/^\[|\]$/g, '')
        .toLowerCase() === publicHost
    ) {
      opts.host = '127.0.0.1';
      opts.port = doorPort;
    }
    return connect.apply(this, args);
  };
}

// The app runs with its deployment directory as cwd. Errors the developer sees (status reasons,
// error events, the stack on stderr) name the app's files relative to it, and leave out the
// server's own layout: frames of the runner, of the engine's loaders and of Node's internals.
const appRoot = process.cwd();
const appRootUrl = pathToFileURL(appRoot).href;

/** @param {string} text */
function relativeToApp(text) {
  return text.split(`${appRootUrl}/`).join('./').split(`${appRoot}/`).join('./');
}

/** The stack as the app's developer needs it: their frames (and anonymous ones), nothing of the server. */
function stackOf(err) {
  const lines = relativeToApp(String(err.stack)).split('\n');
  return lines.filter((l) => !/^\s+at /.test(l) || !/(\(|at )(\/|file:\/\/|node:)/.test(l)).join('\n');
}

/** @param {unknown} err */
function messageOf(err) {
  return relativeToApp(rawMessageOf(err));
}

/** @param {unknown} err */
function rawMessageOf(err) {
  if (err instanceof Error) return err.message ? `${err.name && err.name !== 'Error' ? `${err.name}: ` : ''}${err.message}` : String(err);
  if (typeof err === 'string') return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

/** Every app the entrypoint registered, from whichever SDK copy and flavour it used. */
async function registeredApps(entry) {
  const apps = new Map();
  const roots = new Set();
  for (const base of [entry, fallbackParentURL ? new URL(fallbackParentURL).pathname : undefined]) {
    if (!base) continue;
    try {
      roots.add(path.dirname(createRequire(base).resolve('@onkernel/sdk')));
    } catch {}
  }
  for (const root of roots) {
    const registries = [];
    try {
      registries.push(createRequire(entry)(path.join(root, 'core', 'app-framework.js')).appRegistry);
    } catch {}
    try {
      registries.push((await import(pathToFileURL(path.join(root, 'core', 'app-framework.mjs')).href)).appRegistry);
    } catch {}
    for (const r of registries) for (const app of r?.getApps?.() ?? []) apps.set(app.name, app);
  }
  return apps;
}

async function run(job) {
  try {
    await import(pathToFileURL(job.entry).href);
  } catch (err) {
    if (err?.stack) process.stderr.write(`${stackOf(err)}\n`);
    return { ok: false, phase: 'load', error: messageOf(err) };
  }
  const apps = await registeredApps(job.entry);
  if (job.mode === 'discover') {
    return { ok: true, apps: [...apps.values()].map((a) => ({ name: a.name, actions: a.getActions().map((x) => ({ name: x.name })) })) };
  }
  const app = apps.get(job.app);
  const action = app?.getAction(job.action);
  if (!action) return { ok: false, phase: 'lookup', error: `action '${job.action}' of app '${job.app}' is not registered by the entrypoint` };
  let result;
  try {
    const payload = job.payload === undefined || job.payload === null ? undefined : JSON.parse(job.payload);
    result = await action.handler(job.context, payload);
  } catch (err) {
    if (err?.stack) process.stderr.write(`${stackOf(err)}\n`);
    return { ok: false, phase: 'action', error: messageOf(err) };
  }
  try {
    return { ok: true, output: result === undefined ? undefined : JSON.stringify(result) };
  } catch (err) {
    return { ok: false, phase: 'action', error: `the action's return value is not JSON-serializable: ${messageOf(err)}` };
  }
}

/** Characters of an error kept when the whole answer is over the engine's message limit. */
const ERROR_KEEP = 64 * 1024;
let started = false;
const parent = parentChannel((job) => {
  if (started) return;
  started = true;
  parent.limit(job.limit);
  void run(job).then((answer) =>
    parent.sendOr(
      { answer },
      (err) => ({
        answer: {
          ok: false,
          phase: answer.phase ?? 'action',
          error: answer.ok ? `the action's return value is too large to send: ${err.message}` : `${String(answer.error).slice(0, ERROR_KEEP)} [truncated]`,
        },
      }),
      () => process.exit(0),
    ),
  );
});
