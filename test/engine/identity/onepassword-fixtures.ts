/**
 * Fixtures for the credential provider tests. `fakeServiceAccountToken` builds a token in the
 * 1Password service account format (`ops_` + base64url JSON) with random key material and a
 * sign-in address of our choosing: the real SDK parses it and connects to that address, so a
 * test can aim it at a closed local port or a local server that never answers. No test here
 * reaches 1password.com, and none signs in successfully.
 */
import net from 'node:net';
import crypto from 'node:crypto';

const ALPHABET = '23456789ABCDEFGHJKLMNPQRSTVWXYZ';
const pick = (n: number) => Array.from({ length: n }, () => ALPHABET[crypto.randomInt(ALPHABET.length)]).join('');

export function fakeServiceAccountToken(signInAddress: string): string {
  const body = {
    signInAddress,
    email: 'svc@example.test',
    secretKey: `A3-${pick(6)}-${pick(6)}-${pick(5)}-${pick(5)}-${pick(5)}-${pick(5)}`,
    srpX: crypto.randomBytes(32).toString('hex'),
    muk: { alg: 'A256GCM', ext: true, k: crypto.randomBytes(32).toString('base64url'), key_ops: ['encrypt', 'decrypt'], kty: 'oct', kid: 'mp' },
    userAuth: { method: 'SRPg-4096', alg: 'PBES2g-HS256', iterations: 650000, salt: crypto.randomBytes(16).toString('base64url') },
    deviceUuid: pick(26).toLowerCase(),
    throttleSecret: { seed: crypto.randomBytes(32).toString('hex'), uuid: pick(26).toLowerCase() },
  };
  return `ops_${Buffer.from(JSON.stringify(body)).toString('base64url')}`;
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** A loopback server that accepts connections and never answers (the SDK's TLS handshake hangs). */
export async function silentServer(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let count = 0;
  const srv = net.createServer((s) => {
    count++;
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    port: (srv.address() as net.AddressInfo).port,
    connections: () => count,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => srv.close(() => r()));
    },
  };
}
