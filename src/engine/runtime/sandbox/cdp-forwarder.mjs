/**
 * Inside a sandbox (its own network namespace, only `lo`): listens on 127.0.0.1:<port> and pipes
 * every connection to the session's CDP Unix socket, which the engine forwards to the session's
 * Chromium. So `http://127.0.0.1:9222` inside a sandbox is that session's browser and nothing
 * else. Chromium builds the `webSocketDebuggerUrl` of `/json/version` from the Host header, so
 * the URLs it hands out point back at this forwarder.
 *
 * Plain JavaScript with builtins only: it runs under bare `node` inside the sandbox.
 */
import net from 'node:net';

/**
 * Pipes two sockets into each other; either ending or failing ends both.
 * @param {net.Socket} a
 * @param {net.Socket} b
 */
export function splice(a, b) {
  const end = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', end).on('close', end);
  b.on('error', end).on('close', end);
  a.pipe(b);
  b.pipe(a);
}

/**
 * @param {string} socketPath
 * @param {number} port 0 picks a free one (read it from the server's address)
 * @param {string} [host] the loopback address to listen on (an app jail also serves `::1`)
 * @returns {Promise<net.Server>}
 */
export function listenForwarder(socketPath, port, host = '127.0.0.1') {
  const server = net.createServer((client) => splice(client, net.connect(socketPath)));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', reject);
      server.on('error', () => {});
      resolve(server);
    });
  });
}
