/**
 * An upstream proxy the engine connects to, as plain data: what the local forwarder dials and
 * what proxy health checks request through. Defined here, beside the forwarder, so the runtime
 * does not depend on the domain's proxy records; the domain builds these from its records and
 * provider configuration.
 */

export interface Upstream {
  protocol: 'http' | 'https';
  host: string;
  port: number;
  username?: string;
  password?: string;
}

/** `Proxy-Authorization` value for the upstream's credentials, or undefined when it has none. */
export function proxyAuthorization(u: Upstream): string | undefined {
  if (u.username === undefined && u.password === undefined) return undefined;
  return 'Basic ' + Buffer.from(`${u.username ?? ''}:${u.password ?? ''}`).toString('base64');
}
