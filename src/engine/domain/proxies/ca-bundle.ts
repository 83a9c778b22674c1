/**
 * A custom proxy's `ca_bundle` (Kernel 0.85): the PEM certificates of the CA a TLS-intercepting
 * proxy re-signs sites with, which the browsers of sessions using that proxy must trust. Only
 * certificates are accepted — a private key pasted by mistake, another PEM type or stray text is
 * a 400 naming it — and each must parse as X.509 (node:crypto), so a bundle that would not make
 * Chromium trust anything is refused at create rather than discovered as certificate errors.
 *
 * The bundle is stored encrypted (proxies.ts) and handed to the session jail as base64 DER, the
 * form of Chromium's `CACertificates` policy (runtime/sandbox/session-jail.ts).
 */
import { X509Certificate } from 'node:crypto';
import { DomainError } from '../../../shared/errors/domain-error.js';

/** A generous bundle (a chain of a few CAs is 2–10 KB); more is a mistake, not a CA. */
export const MAX_CA_BUNDLE_BYTES = 64 * 1024;
export const MAX_CA_CERTIFICATES = 20;

const FIELD = 'config.ca_bundle';
const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

export interface CaBundle {
  /** The certificates as normalized PEM (what is stored). */
  pem: string;
  /** Each certificate as base64 DER (what Chromium's policy takes). */
  der: string[];
}

/** Validates a `ca_bundle` value; throws a 400 DomainError naming what is wrong. */
export function parseCaBundle(raw: unknown): CaBundle {
  if (typeof raw !== 'string') throw DomainError.invalidField(FIELD, 'must be a string of PEM certificates');
  if (Buffer.byteLength(raw) > MAX_CA_BUNDLE_BYTES) throw DomainError.invalidField(FIELD, `must be at most ${MAX_CA_BUNDLE_BYTES / 1024} KB`);
  const der: string[] = [];
  const pems: string[] = [];
  let rest = raw;
  for (const m of raw.matchAll(BLOCK)) {
    const kind = m[1];
    if (kind !== 'CERTIFICATE')
      throw DomainError.invalidField(
        FIELD,
        /PRIVATE KEY/.test(kind)
          ? `contains a ${kind}: only the CA's certificates belong here, never a key`
          : `contains a ${kind} block: only CERTIFICATE blocks are accepted`,
      );
    const n = der.length + 1;
    if (n > MAX_CA_CERTIFICATES) throw DomainError.invalidField(FIELD, `must hold at most ${MAX_CA_CERTIFICATES} certificates`);
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(m[0]);
    } catch {
      throw DomainError.invalidField(FIELD, `certificate ${n} is not a valid X.509 certificate`);
    }
    der.push(cert.raw.toString('base64'));
    pems.push(cert.toString().trim());
    rest = rest.replace(m[0], '');
  }
  if (/\S/.test(rest)) throw DomainError.invalidField(FIELD, 'must contain only PEM certificates (-----BEGIN CERTIFICATE----- blocks)');
  if (der.length === 0) throw DomainError.invalidField(FIELD, 'holds no certificate (PEM -----BEGIN CERTIFICATE----- blocks expected)');
  return { pem: pems.join('\n') + '\n', der };
}

/** The base64 DER certificates of a stored (already validated) bundle. */
export function caCertificatesOf(pem: string): string[] {
  return parseCaBundle(pem).der;
}
