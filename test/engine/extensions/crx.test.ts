/**
 * CRX → zip: CRX3 (length-prefixed header) and CRX2 (public key + signature) packages give back
 * exactly the zip behind the header; a plain zip passes through; anything else is a 502 Error
 * naming why (what a store or a captive portal might answer instead of a package).
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { crxToZip } from '../../../src/engine/domain/extensions/crx.js';
import { ApiError } from '../../../src/engine/http/api-error.js';
import { crx3, markerExtension } from './extension-zips.js';

function crx2(zip: Buffer, keyLen = 162, sigLen = 128): Buffer {
  const head = Buffer.alloc(16);
  head.write('Cr24', 0, 'latin1');
  head.writeUInt32LE(2, 4);
  head.writeUInt32LE(keyLen, 8);
  head.writeUInt32LE(sigLen, 12);
  return Buffer.concat([head, crypto.randomBytes(keyLen + sigLen), zip]);
}

function failure(buf: Buffer): ApiError {
  try {
    crxToZip(buf);
  } catch (e) {
    return e as ApiError;
  }
  throw new Error('expected crxToZip to throw');
}

describe('crxToZip', () => {
  it('strips CRX3 and CRX2 headers and passes a plain zip through', async () => {
    const zip = await markerExtension('crx');
    expect(crxToZip(crx3(zip)).equals(zip)).toBe(true);
    expect(crxToZip(crx3(zip, 0)).equals(zip)).toBe(true);
    expect(crxToZip(crx2(zip)).equals(zip)).toBe(true);
    expect(crxToZip(zip).equals(zip)).toBe(true);
  });

  it('refuses what is not a package with a 502 saying why', async () => {
    const zip = await markerExtension('crx');
    expect(failure(Buffer.from('<html>portal</html>'))).toMatchObject({ status: 502, code: 'chrome_store_bad_package', message: /no CRX magic/ });
    const v4 = crx3(zip);
    v4.writeUInt32LE(4, 4);
    expect(failure(v4).message).toMatch(/unknown CRX version 4/);
    // A header length pointing past the data, or at something that is not a zip.
    const long = crx3(zip);
    long.writeUInt32LE(long.length, 8);
    expect(failure(long).message).toMatch(/no zip after/);
    expect(failure(crx3(Buffer.from('not a zip at all'))).message).toMatch(/no zip after/);
    expect(failure(Buffer.from('Cr24\x02\0\0\0\0\0', 'latin1')).status).toBe(502);
  });
});
