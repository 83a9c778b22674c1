/**
 * Where a login flow may take its browser: the connection's `domain`, its `allowed_domains`
 * (e.g. an SSO identity provider) and the host of its `login_url`, each with its subdomains.
 * A flow whose page lands on any other host fails (`domain_not_allowed`) before anything is
 * typed there, so credentials and codes are only ever entered on hosts the operator named.
 */

/** Lower-case hosts a flow may visit. */
export function allowedHosts(domain: string, allowedDomains: string[], loginUrl: string | null): string[] {
  const hosts = new Set([domain, ...allowedDomains].map((d) => d.toLowerCase()));
  if (loginUrl) {
    try {
      hosts.add(new URL(loginUrl).hostname.toLowerCase());
    } catch {
      // an unparsable login_url never loads anyway
    }
  }
  return [...hosts];
}

/** The host of `url` when it is an http(s) page outside `allowed`, else undefined. */
export function disallowedHost(url: string, allowed: string[]): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined; // about:blank, chrome-error://
  const host = u.hostname.toLowerCase();
  const withPort = u.host.toLowerCase();
  const ok = allowed.some((d) => host === d || withPort === d || host.endsWith('.' + d));
  return ok ? undefined : host;
}

/** Remembers the first main-frame navigation to a host outside the allowed ones. */
export class NavigationGuard {
  private first?: string;

  constructor(private readonly allowed: string[] | undefined) {}

  note(url: string): void {
    if (!this.allowed || this.first) return;
    this.first = disallowedHost(url, this.allowed);
  }

  /** The offending host, if the flow's page has been outside the allowed hosts. */
  violation(currentUrl?: string): string | undefined {
    if (currentUrl) this.note(currentUrl);
    return this.first;
  }

  message(host: string): string {
    return `the login navigated to ${host}, which is neither the connection's domain nor in its allowed_domains (${this.allowed?.join(', ')}); add it to allowed_domains if it is part of this login (e.g. an SSO provider)`;
  }
}
