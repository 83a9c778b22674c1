/**
 * A small real login website for tests, on loopback. Two-step form (identifier, then
 * password), an optional SMS-style code step (the test reads the code it "sent"), a TOTP step,
 * the website's own error text on a wrong password, persistent session cookies, and
 * `expireSessions()` to log everyone out server-side (what a health check should notice).
 *
 *   /           account page when signed in ("Signed in as <user>"), else redirect to /login
 *   /login      step 1: email; POST → /login/password
 *   /login/password, /login/code, /login/totp  the following steps
 *   /login/method  MFA method choice ("Text me a code" / "Use an authenticator app") for users with mfa 'choice'
 *
 * With `opts.idp`, the sign-in page also offers "Sign in with ExampleID": /sso/start sends the
 * browser to a second local server acting as the identity provider, addressed as
 * `http://localhost:<port>` (another host than the site's 127.0.0.1), whose own username +
 * password form returns a one-time ticket to /sso/callback. Every page logs to the console.
 */
import http from 'node:http';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { totpFromSecret } from '../../src/engine/domain/credentials/totp.js';

export interface SiteUser {
  password: string;
  /** 'choice': the user picks SMS or authenticator app on /login/method (set totpSecret too). */
  mfa?: 'sms' | 'totp' | 'choice';
  totpSecret?: string;
  /**
   * After the email step the site answers with the same email form ("Checking your account…")
   * and its script moves on to the password step this many ms later: a page that changes by
   * itself after a submit seemed to have done nothing.
   */
  checkingMs?: number;
}

export interface LoginSite {
  url: string;
  port: number;
  loginUrl: string;
  /** The SMS code most recently "sent" to a user. */
  smsCode(user: string): string | undefined;
  /** Logs every session out (cookies the browser holds stop working). */
  expireSessions(): void;
  /** Successful sign-ins so far, per user. */
  signIns: Record<string, number>;
  /** With `opts.idp`: the identity provider's origin (http://localhost:<port>) and host. */
  idpUrl?: string;
  idpHost?: string;
  /** MFA methods chosen on /login/method, in order. */
  chosenMethods: string[];
  /** A slow site: responses to `"<METHOD> <path>"` (e.g. `"POST /login"`) wait this many ms before they are sent. */
  delays: Map<string, number>;
  /**
   * The sign-in page (/login) swallows the first key press it gets, before anything else sees it:
   * a page not ready for input yet (Chromium itself sometimes drops input a page gets right after
   * it loaded).
   */
  swallowFirstKey: boolean;
  /** Every request so far, as `"<METHOD> <path>"`. */
  requests: string[];
  close(): Promise<void>;
}

export interface LoginSiteOptions {
  /** ExampleID accounts: IdP username → { password, user it signs in as on the site }. */
  idp?: Record<string, { password: string; user: string }>;
}

const page = (title: string, body: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><script>console.log('login-site page ' + location.pathname)</script></head><body><main>${body}</main></body></html>`;

function form(action: string, inner: string, error?: string): string {
  return `${error ? `<div role="alert" class="error">${error}</div>` : ''}<form method="post" action="${action}">${inner}<button type="submit">Continue</button></form>`;
}

function parseCookies(h: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (h ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out[part.slice(0, i).trim()] = decodeURIComponent(part.slice(i + 1).trim());
  }
  return out;
}

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export async function startLoginSite(users: Record<string, SiteUser>, opts: LoginSiteOptions = {}): Promise<LoginSite> {
  const sessions = new Map<string, string>(); // session id → user
  const pending = new Map<string, { user: string; step: 'password' | 'code' | 'totp' | 'method' }>(); // pending id → state
  const chosenMethods: string[] = [];
  const tickets = new Map<string, string>(); // IdP ticket → site user (one use)
  const idp = opts.idp ? await startIdp(opts.idp, tickets) : undefined;
  const sms = new Map<string, string>();
  const signIns: Record<string, number> = {};
  const sockets = new Set<net.Socket>();

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    site.requests.push(`${req.method} ${url.pathname}`);
    const delay = site.delays.get(`${req.method} ${url.pathname}`);
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    const cookies = parseCookies(req.headers.cookie);
    const send = (status: number, html: string, headers: http.OutgoingHttpHeaders = {}): void => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers }).end(html);
    };
    const redirect = (to: string, headers: http.OutgoingHttpHeaders = {}): void => {
      res.writeHead(303, { location: to, 'cache-control': 'no-store', ...headers }).end();
    };
    const flow = cookies.pending ? pending.get(cookies.pending) : undefined;
    const finish = (user: string): void => {
      const sid = randomBytes(12).toString('hex');
      sessions.set(sid, user);
      signIns[user] = (signIns[user] ?? 0) + 1;
      pending.delete(cookies.pending);
      // Persistent (Max-Age) so it survives in a saved browser profile.
      redirect('/', { 'set-cookie': [`sid=${sid}; Path=/; Max-Age=86400; HttpOnly; SameSite=Lax`, 'pending=; Path=/; Max-Age=0'] });
    };
    const afterPassword = (user: string): void => {
      const u = users[user];
      if (u.mfa === 'choice') {
        pending.set(cookies.pending, { user, step: 'method' });
        return redirect('/login/method');
      }
      if (u.mfa === 'sms') {
        sms.set(user, String(100000 + Math.floor(Math.random() * 900000)));
        pending.set(cookies.pending, { user, step: 'code' });
        return redirect('/login/code');
      }
      if (u.mfa === 'totp') {
        pending.set(cookies.pending, { user, step: 'totp' });
        return redirect('/login/totp');
      }
      finish(user);
    };

    if (url.pathname === '/' && req.method === 'GET') {
      const user = cookies.sid ? sessions.get(cookies.sid) : undefined;
      if (!user) return redirect('/login');
      return send(200, page('Account', `<h1 id="account">Signed in as ${user}</h1><a href="/logout">Sign out</a>`));
    }
    if (url.pathname === '/login' && req.method === 'GET') {
      const sso = idp ? `<p>or</p><a class="sso" href="/sso/start">Sign in with ExampleID</a>` : '';
      return send(
        200,
        page(
          'Sign in',
          `<h1>Sign in to Example</h1>` +
            form(
              '/login',
              `<label for="email">Email address</label><input id="email" name="email" type="email" placeholder="you@example.com" autocomplete="username" required>`,
            ) +
            sso +
            (site.swallowFirstKey
              ? `<script>addEventListener('keydown', (e) => { e.preventDefault(); e.stopImmediatePropagation(); }, { capture: true, once: true })</script>`
              : ''),
        ),
      );
    }
    if (url.pathname === '/sso/start' && idp) {
      const back = `http://${req.headers.host}/sso/callback`;
      return redirect(`${idp.url}/authorize?return_to=${encodeURIComponent(back)}`);
    }
    if (url.pathname === '/sso/callback' && idp) {
      const user = tickets.get(url.searchParams.get('ticket') ?? '');
      if (!user) return send(400, page('Sign in failed', '<p role="alert" class="error">The ExampleID ticket is not valid.</p>'));
      tickets.delete(url.searchParams.get('ticket')!);
      return finish(user);
    }
    if (url.pathname === '/login/method') {
      if (!flow || flow.step !== 'method') return redirect('/login');
      if (req.method === 'GET') {
        return send(
          200,
          page(
            'Verify it is you',
            `<h1>How should we verify it is you?</h1><form method="post" action="/login/method"><button type="submit" name="method" value="sms">Text me a code</button> <button type="submit" name="method" value="totp">Use an authenticator app</button></form>`,
          ),
        );
      }
      const method = (await readForm(req)).get('method');
      if (method !== 'sms' && method !== 'totp') return redirect('/login/method');
      chosenMethods.push(method);
      if (method === 'sms') {
        sms.set(flow.user, String(100000 + Math.floor(Math.random() * 900000)));
        pending.set(cookies.pending, { user: flow.user, step: 'code' });
        return redirect('/login/code');
      }
      pending.set(cookies.pending, { user: flow.user, step: 'totp' });
      return redirect('/login/totp');
    }
    if (url.pathname === '/login' && req.method === 'POST') {
      const f = await readForm(req);
      const user = (f.get('email') ?? '').trim();
      if (!users[user])
        return send(
          200,
          page(
            'Sign in',
            form('/login', `<label for="email">Email address</label><input id="email" name="email" type="email" required>`, 'We could not find that account.'),
          ),
        );
      const pid = randomBytes(12).toString('hex');
      pending.set(pid, { user, step: 'password' });
      const cookie = `pending=${pid}; Path=/; HttpOnly; SameSite=Lax`;
      const checking = users[user].checkingMs;
      if (checking !== undefined)
        return send(
          200,
          page(
            'Sign in',
            `<p>Checking your account…</p>` +
              form('/login', `<label for="email">Email address</label><input id="email" name="email" type="email" required>`) +
              `<script>setTimeout(() => location.assign('/login/password'), ${checking})</script>`,
          ),
          { 'set-cookie': cookie },
        );
      return redirect('/login/password', { 'set-cookie': cookie });
    }
    if (url.pathname === '/login/password') {
      if (!flow || flow.step !== 'password') return redirect('/login');
      const passwordForm = (error?: string) =>
        page(
          'Enter password',
          `<p>Signing in as ${flow.user}</p>` +
            form('/login/password', `<label for="password">Password</label><input id="password" name="password" type="password" required>`, error),
        );
      if (req.method === 'GET') return send(200, passwordForm());
      const f = await readForm(req);
      if (f.get('password') !== users[flow.user].password) return send(200, passwordForm('Incorrect password. Please try again.'));
      return afterPassword(flow.user);
    }
    if (url.pathname === '/login/code') {
      if (!flow || flow.step !== 'code') return redirect('/login');
      const codeForm = (error?: string) =>
        page(
          'Verify',
          `<p class="hint">We sent a 6-digit code to your phone ending in 92.</p>` +
            form(
              '/login/code',
              `<label for="code">Verification code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required>`,
              error,
            ),
        );
      if (req.method === 'GET') return send(200, codeForm());
      const f = await readForm(req);
      if (f.get('code') !== sms.get(flow.user)) return send(200, codeForm('That code is not right.'));
      return finish(flow.user);
    }
    if (url.pathname === '/login/totp') {
      if (!flow || flow.step !== 'totp') return redirect('/login');
      const totpForm = (error?: string) =>
        page(
          'Two-factor',
          form(
            '/login/totp',
            `<label for="otp">Authenticator app code</label><input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" required>`,
            error,
          ),
        );
      if (req.method === 'GET') return send(200, totpForm());
      const f = await readForm(req);
      const secret = users[flow.user].totpSecret ?? '';
      const now = Date.now();
      const ok = [now, now - 30_000].some((t) => totpFromSecret(secret, new Date(t)).code === f.get('otp'));
      if (!ok) return send(200, totpForm('Invalid authentication code.'));
      return finish(flow.user);
    }
    if (url.pathname === '/logout') {
      if (cookies.sid) sessions.delete(cookies.sid);
      return redirect('/login', { 'set-cookie': 'sid=; Path=/; Max-Age=0' });
    }
    send(404, page('Not found', 'not found'));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const site: LoginSite = {
    url,
    port,
    loginUrl: `${url}/login`,
    smsCode: (user) => sms.get(user),
    expireSessions: () => sessions.clear(),
    signIns,
    idpUrl: idp?.url,
    idpHost: idp ? 'localhost' : undefined,
    chosenMethods,
    delays: new Map(),
    swallowFirstKey: false,
    requests: [],
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await idp?.close();
    },
  };
  return site;
}

/** The ExampleID identity provider: one username + password form, answering with a ticket. */
async function startIdp(accounts: NonNullable<LoginSiteOptions['idp']>, tickets: Map<string, string>): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://idp');
    const send = (status: number, html: string): void =>
      void res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
    if (url.pathname !== '/authorize') return send(404, page('Not found', 'not found'));
    const signInForm = (returnTo: string, error?: string) =>
      page(
        'ExampleID',
        `<h1>ExampleID</h1>` +
          form(
            `/authorize?return_to=${encodeURIComponent(returnTo)}`,
            `<label for="idp-user">ExampleID username</label><input id="idp-user" name="username" type="text" autocomplete="username" required><label for="idp-pass">Password</label><input id="idp-pass" name="password" type="password" required>`,
            error,
          ),
      );
    const returnTo = url.searchParams.get('return_to') ?? '';
    if (!/^http:\/\/127\.0\.0\.1:\d+\/sso\/callback$/.test(returnTo))
      return send(400, page('ExampleID', '<p role="alert" class="error">Unknown application.</p>'));
    if (req.method === 'GET') return send(200, signInForm(returnTo));
    const f = await readForm(req);
    const account = accounts[f.get('username') ?? ''];
    if (!account || account.password !== f.get('password')) return send(200, signInForm(returnTo, 'ExampleID does not know that username and password.'));
    const ticket = randomBytes(12).toString('hex');
    tickets.set(ticket, account.user);
    res.writeHead(303, { location: `${returnTo}?ticket=${ticket}`, 'cache-control': 'no-store' }).end();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
