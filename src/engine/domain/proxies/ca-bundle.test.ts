import { describe, expect, it } from 'vitest';
import { caCertificatesOf, MAX_CA_BUNDLE_BYTES, parseCaBundle } from './ca-bundle.js';

/** A self-signed P-256 CA (openssl req -x509, CA:TRUE), public material only. */
const CA = `-----BEGIN CERTIFICATE-----
MIIBojCCAUegAwIBAgIUHWPiHoHFoI2/T02x75vCBY2yju8wCgYIKoZIzj0EAwIw
HjEcMBoGA1UEAwwTQnJvd3NlcmRlY2sgdGVzdCBDQTAeFw0yNjExMjYwNTM2NTda
Fw0zNjExMjMwNTM2NTdaMB4xHDAaBgNVBAMME0Jyb3dzZXJkZWNrIHRlc3QgQ0Ew
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQ5A//Xd8XtqP5bC61z/KxbfAV5C2Kl
3iIZKEOyL/6LTC78zym+AhuyZn75ZXZqrFZ0xDP32RKvFJ+1A0oD0eEno2MwYTAd
BgNVHQ4EFgQUa3cYJWoQT6xMJEWo/80oySgh//IwHwYDVR0jBBgwFoAUa3cYJWoQ
T6xMJEWo/80oySgh//IwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAQYw
CgYIKoZIzj0EAwIDSQAwRgIhAIpPssij/AtUCYo8/1CT+gXRQ+akS0ebN23vzYVk
/GkhAiEAxLl7G/bFQDHu+sOZCaCpCc9N5cDW5Zdr/zvcODPwjJY=
-----END CERTIFICATE-----
`;
const DER = CA.split('\n')
  .filter((l) => l && !l.startsWith('-----'))
  .join('');

function refusal(raw: unknown): string {
  try {
    parseCaBundle(raw);
  } catch (err) {
    expect((err as { status?: number }).status).toBe(400);
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('parseCaBundle', () => {
  it('takes one or more PEM certificates (CRLF and surrounding blank lines too) and gives their DER', () => {
    expect(parseCaBundle(CA)).toEqual({ pem: CA, der: [DER] });
    const two = parseCaBundle(`\n${CA}\n${CA.replace(/\n/g, '\r\n')}\n\n`);
    expect(two.der).toEqual([DER, DER]);
    expect(two.pem).toBe(`${CA.trim()}\n${CA}`);
    expect(caCertificatesOf(two.pem)).toEqual([DER, DER]);
  });

  it('refuses anything but certificates, naming what it found', () => {
    expect(refusal(42)).toMatch(/^config\.ca_bundle: must be a string/);
    expect(refusal('')).toMatch(/holds no certificate/);
    expect(refusal('hello')).toMatch(/must contain only PEM certificates/);
    expect(refusal(`${CA}trailing text`)).toMatch(/must contain only PEM certificates/);
    expect(refusal(`${CA}-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n`)).toMatch(/contains a PRIVATE KEY: only the CA's certificates/);
    expect(refusal('-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----\n')).toMatch(/contains a EC PRIVATE KEY/);
    expect(refusal('-----BEGIN X509 CRL-----\nMIIB\n-----END X509 CRL-----\n')).toMatch(/contains a X509 CRL block/);
    expect(refusal('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n')).toMatch(/certificate 1 is not a valid X\.509 certificate/);
    expect(refusal(CA.replace('MIIBoj', 'MIIBoz'))).toMatch(/certificate 1 is not a valid/);
  });

  it('caps the size and the number of certificates', () => {
    expect(refusal(CA + ' '.repeat(MAX_CA_BUNDLE_BYTES))).toMatch(/at most 64 KB/);
    expect(refusal(CA.repeat(21))).toMatch(/at most 20 certificates/);
  });
});
