/**
 * The managed policy file of a session's browser jail: its `chrome_policy`, plus the CA
 * certificates of its proxies' `ca_bundle`s as Chromium's `CACertificates` (base64 DER),
 * appended to any the session sets itself. Chromium reads it at launch from the policy dir
 * session-jail.ts mounts read-only into the browser jail (and only there).
 */
export function managedPolicyOf(config: { chromePolicy?: Record<string, unknown>; caCertificates?: string[] }): Record<string, unknown> | undefined {
  const cas = config.caCertificates ?? [];
  if (!cas.length) return config.chromePolicy;
  const own = config.chromePolicy?.CACertificates;
  return { ...config.chromePolicy, CACertificates: [...(Array.isArray(own) ? own : []), ...cas] };
}
