/**
 * Runs first inside an app jail (app-runtime/app-jail.ts), in the jail's own network namespace
 * where only `lo` exists, and then runs the app's command (the app runner, or npm) as its child.
 * It gives the command its only two ways out, both loopback ports piped to Unix sockets the
 * engine serves and binds into the jail (the same forwarder session processes use for CDP):
 *  - an HTTP(S) proxy on a free 127.0.0.1 port, piped to the engine's egress proxy, which
 *    resolves names and applies the operator's egress policy (as for browsers). The command
 *    learns it from HTTP_PROXY/HTTPS_PROXY (and npm's own variables);
 *  - the engine itself: its public URL's loopback address and port, piped to the engine, so
 *    KERNEL_BASE_URL and the CDP URLs of the sessions the app creates work unchanged and
 *    without the proxy (NO_PROXY names exactly that address). When the jail cannot listen
 *    there (`redirect`: another machine's address, or a port below 1024), it listens on a free
 *    loopback port and tells the command in BROWSERDECK_ENGINE_REDIRECT (`public=door`), which
 *    the app runner applies to every connection it opens.
 * Nothing else leaves the namespace: no DNS, no UDP, no direct TCP.
 *
 *   node app-jail-helper.mjs <spec JSON> <command> [args…]
 *   spec: { egressSocket, engine?: { socket, port, listen: [{ host, required }], redirect? }, noProxy, channelFd? }
 *
 * `channelFd`: the engine's channel (fd 3 of bwrap, a plain pipe of length-prefixed JSON,
 * frame-channel.mjs) is handed to the command at the same fd, not opened here, so the runner
 * talks to the engine directly. The command's exit is this
 * process's exit: the same code, or the same signal. Plain JavaScript with builtins only (and
 * cdp-forwarder.mjs, mounted beside it): it runs under bare `node` inside the jail. It never
 * touches process.stdout/stderr, which it shares with the command (that could make them
 * non-blocking for it).
 */
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { constants } from 'node:os';
import { listenForwarder } from './cdp-forwarder.mjs';

const [specText, command, ...args] = process.argv.slice(2);

/** @param {string} why */
function fail(why) {
  writeSync(2, `browserdeck-app-jail: ${why}\n`);
  process.exit(1);
}

/** @type {{ egressSocket: string, engine?: { socket: string, port: number, listen: Array<{ host: string, required: boolean }>, redirect?: string }, noProxy: string, channelFd?: number }} */
let spec;
try {
  spec = JSON.parse(specText);
} catch (err) {
  fail(`bad spec: ${err.message}`);
}
if (!command) fail('usage: app-jail-helper.mjs <spec JSON> <command> [args…]');

const servers = [];
try {
  const proxy = await listenForwarder(spec.egressSocket, 0);
  servers.push(proxy);
  for (const l of spec.engine?.listen ?? []) {
    // `localhost` may resolve to ::1 inside; a kernel without IPv6 on lo lacks it, which is fine.
    const s = await listenForwarder(spec.engine.socket, spec.engine.port, l.host).catch((err) => {
      if (l.required) throw new Error(`cannot serve the engine at ${l.host}:${spec.engine.port}: ${err.message}`);
    });
    if (s) servers.push(s);
  }
  if (spec.engine?.redirect && servers.length < 2) throw new Error('cannot serve the engine door');
} catch (err) {
  fail(err.message);
}

const proxyUrl = `http://127.0.0.1:${servers[0].address().port}`;
const env = { ...process.env };
// Lower and upper case: tools read one or the other. npm's own settings win over these, and
// the engine may pass its npm_config_* (a proxy the jail cannot reach), so they are set too.
for (const k of ['HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy', 'npm_config_proxy', 'npm_config_https_proxy']) env[k] = proxyUrl;
for (const k of ['NO_PROXY', 'no_proxy', 'npm_config_noproxy']) env[k] = spec.noProxy;
if (spec.engine?.redirect) env.BROWSERDECK_ENGINE_REDIRECT = `${spec.engine.redirect}=127.0.0.1:${servers[1].address().port}`;
else delete env.BROWSERDECK_ENGINE_REDIRECT;
const stdio = ['inherit', 'inherit', 'inherit'];
if (spec.channelFd !== undefined) stdio[spec.channelFd] = spec.channelFd;

const child = spawn(command, args, { stdio, env });
child.on('error', (err) => fail(`${command}: ${err.code === 'ENOENT' ? 'command not found' : err.message}`));
child.on('exit', (code, signal) => {
  for (const s of servers) s.close();
  if (signal) {
    process.kill(process.pid, signal);
    // Node ignores SIGPIPE (and a few signals do not end a process): exit with the shell's code then.
    setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 100);
    return;
  }
  process.exit(code ?? 0);
});
