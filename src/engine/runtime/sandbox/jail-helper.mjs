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
 * Plain JavaScript with builtins only (and cdp-forwarder.mjs, mounted beside it): it runs under
 * bare `node` inside the jail.
 */
import net from 'node:net';
import { listenForwarder, splice } from './cdp-forwarder.mjs';

const [sockDir, devtoolsPort, egressPort, egressSocket] = process.argv.slice(2);

const fail = (err) => {
  process.stderr.write(`browserdeck-jail: ${err.message}\n`);
  process.exit(1);
};

// Out: the same loopback-port-to-Unix-socket forwarder session processes use for CDP.
const egress = listenForwarder(egressSocket, Number(egressPort));
// In: the reverse, the engine's Unix socket to Chromium's DevTools port.
const devtools = new Promise((resolve, reject) => {
  net
    .createServer((client) => splice(client, net.connect(Number(devtoolsPort), '127.0.0.1')))
    .once('error', reject)
    .listen(`${sockDir}/devtools.sock`, resolve);
});
Promise.all([egress, devtools]).then(() => process.stderr.write('browserdeck-jail: ready\n'), fail);
