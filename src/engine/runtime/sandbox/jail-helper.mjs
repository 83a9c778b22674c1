/**
 * Runs inside a session's browser jail, next to Chromium, in the jail's own network namespace
 * (only `lo` exists there). It is the jail's only door, in both directions:
 *  - in:  a Unix socket in the jail's socket dir (bind-mounted from the engine's private
 *         directory) piped to Chromium's DevTools port on the jail's 127.0.0.1 — the engine
 *         reaches DevTools only through this socket; no host port is ever opened;
 *  - out: 127.0.0.1:<egress port> (Chromium's `--proxy-server`) piped to the engine's egress
 *         proxy socket, where the engine resolves names, applies the egress policy and the
 *         session's upstream proxy. Nothing else leaves the namespace: no UDP, no DNS.
 * Prints one `browserdeck-jail: ready` line on stderr once both listen.
 *
 *   node jail-helper.mjs <socket-dir> <devtools-port> <egress-port> <egress-socket>
 *
 * Plain JavaScript with builtins only: it runs under bare `node` inside the jail.
 */
import net from 'node:net';

const [sockDir, devtoolsPort, egressPort, egressSocket] = process.argv.slice(2);

/** @param {net.Socket} a @param {net.Socket} b */
function splice(a, b) {
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', end).on('close', end);
  b.on('error', end).on('close', end);
  a.pipe(b);
  b.pipe(a);
}

let listening = 0;
const ready = () => {
  if (++listening === 2) process.stderr.write('browserdeck-jail: ready\n');
};
const fail = (err) => {
  process.stderr.write(`browserdeck-jail: ${err.message}\n`);
  process.exit(1);
};

net
  .createServer((c) => splice(c, net.connect(Number(devtoolsPort), '127.0.0.1')))
  .once('error', fail)
  .listen(`${sockDir}/devtools.sock`, ready);
net
  .createServer((c) => splice(c, net.connect(egressSocket)))
  .once('error', fail)
  .listen({ port: Number(egressPort), host: '127.0.0.1', exclusive: true }, ready);
