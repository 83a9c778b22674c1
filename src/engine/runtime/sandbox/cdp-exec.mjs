/**
 * Entry point of a sandboxed session process: `node cdp-exec.mjs <socket> <port>
 * [--node-options=…] -- <command> [args…]`. Starts the CDP forwarder (cdp-forwarder.mjs) first,
 * so the browser is reachable at 127.0.0.1:<port> from the command's first instruction, then
 * runs the command (with the user's NODE_OPTIONS, if any) on the same stdio (pipes or PTY) and
 * exits the way it did: the same code, or by the same signal (so bwrap reports 128 + n). The
 * engine signals the command itself (it finds it as this process's child), so this process
 * ignores the job-control signals a terminal sends to its whole foreground group. It never
 * touches process.stdout/stderr: that could make the stdio it shares with the command
 * non-blocking.
 */
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { constants } from 'node:os';
import { listenForwarder } from './cdp-forwarder.mjs';

const IGNORED = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU']);
const noop = () => {};
for (const s of IGNORED) process.on(s, noop);

const argv = process.argv.slice(2);
const [socketPath, port] = argv.splice(0, 2);
/** The user's NODE_OPTIONS travel as an argument so they do not apply to this process. */
const nodeOptions = argv[0]?.startsWith('--node-options=') ? argv.shift().slice('--node-options='.length) : undefined;
const [sep, command, ...args] = argv;
if (sep !== '--' || !command) {
  writeSync(2, 'usage: cdp-exec.mjs <socket> <port> [--node-options=…] -- <command> [args…]\n');
  process.exit(2);
}

try {
  await listenForwarder(socketPath, Number(port));
} catch (err) {
  // The command still runs (maybe it does not need the browser); say why the port is missing.
  writeSync(2, `browserdeck: 127.0.0.1:${port} is not forwarded to the browser: ${err.message}\n`);
}

const child = spawn(command, args, { stdio: 'inherit', env: nodeOptions === undefined ? process.env : { ...process.env, NODE_OPTIONS: nodeOptions } });
child.on('error', (err) => {
  writeSync(2, `${command}: ${err.code === 'ENOENT' ? 'command not found' : err.message}\n`);
  process.exit(err.code === 'ENOENT' ? 127 : 126);
});
child.on('exit', (code, signal) => {
  if (signal) {
    for (const s of IGNORED) process.off(s, noop);
    process.kill(process.pid, signal);
    // Node ignores SIGPIPE (and a few signals do not end a process): exit with the shell's code then.
    setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 100);
    return;
  }
  process.exit(code ?? 0);
});
