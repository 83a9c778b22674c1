import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SessionJwt } from './session-jwt.js';
import { DevtoolsTokens } from './devtools-token.js';
import { TraceTokens } from './trace-token.js';

describe('SessionJwt', () => {
  const key = randomBytes(32);
  const t0 = new Date('2026-01-01T00:00:00Z');
  let now = t0;
  const jwt = new SessionJwt(key, () => now);
  const claims = { sessionId: 's1', orgId: 'o1', projectId: 'p1' };
  const payload = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());

  it('shapes the claims: sub, org, project, issuer, issued and expiry in seconds', async () => {
    const token = await jwt.sign(claims, new Date('2026-01-01T01:00:00.900Z'));
    expect(JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload(token)).toEqual({ sub: 's1', org: 'o1', project: 'p1', iss: 'browserdeck', iat: 1767225600, exp: 1767229200 });
    expect(await jwt.verify(token)).toEqual(claims);
  });

  it('rejects expired, foreign-key, tampered and malformed tokens as null', async () => {
    now = t0;
    const token = await jwt.sign(claims, new Date(t0.getTime() + 60_000));
    now = new Date(t0.getTime() + 61_000);
    expect(await jwt.verify(token)).toBeNull();
    now = t0;
    expect(await new SessionJwt(randomBytes(32), () => now).verify(token)).toBeNull();
    const [h, , s] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...payload(token), sub: 's2' })).toString('base64url');
    expect(await jwt.verify(`${h}.${forged}.${s}`)).toBeNull();
    expect(await jwt.verify('garbage')).toBeNull();
    expect(await jwt.verify('')).toBeNull();
  });

  it('rejects an unsigned (alg none) token and one missing a claim', async () => {
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 's1', org: 'o1', project: 'p1', iss: 'browserdeck', exp: 9e9 })).toString('base64url')}.`;
    expect(await jwt.verify(none)).toBeNull();
    const { SignJWT } = await import('jose');
    const noProject = await new SignJWT({ org: 'o1' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('s1')
      .setIssuer('browserdeck')
      .setExpirationTime('1h')
      .sign(key);
    expect(await jwt.verify(noProject)).toBeNull();
    const otherIssuer = await new SignJWT({ org: 'o1', project: 'p1' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('s1')
      .setIssuer('someone-else')
      .setExpirationTime('1h')
      .sign(key);
    expect(await jwt.verify(otherIssuer)).toBeNull();
  });

  it('DevTools frontend and trace tokens share the key under their own issuers: each kind verifies only its own', async () => {
    now = t0;
    const exp = new Date(t0.getTime() + 3600_000);
    const devtools = new DevtoolsTokens(jwt);
    const traces = new TraceTokens(jwt);
    const frontend = await devtools.sign({ ...claims, targetId: 'T1', mode: 'read' }, exp);
    const trace = await traces.sign({ ...claims, path: '/tmp/traces/a.zip' }, exp);
    const session = await jwt.sign(claims, exp);
    expect(payload(frontend)).toMatchObject({ sub: 's1', org: 'o1', project: 'p1', target: 'T1', mode: 'read', iss: 'browserdeck:devtools' });
    expect(await devtools.verify(frontend)).toEqual({ ...claims, targetId: 'T1', mode: 'read' });
    expect(await traces.verify(trace)).toEqual({ ...claims, path: '/tmp/traces/a.zip' });
    for (const [name, ok] of [
      ['session JWT', [await jwt.verify(frontend), await jwt.verify(trace)]],
      ['frontend token', [await devtools.verify(session), await devtools.verify(trace)]],
      ['trace token', [await traces.verify(session), await traces.verify(frontend)]],
    ] as const)
      expect(ok, name).toEqual([null, null]);
    now = new Date(exp.getTime() + 1000);
    expect(await devtools.verify(frontend)).toBeNull();
    expect(await traces.verify(trace)).toBeNull();
    now = t0;
  });
});
