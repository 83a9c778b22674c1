/**
 * Chrome Web Store packages (CRX) are a zip behind a signed header: `Cr24`, a format version,
 * then (CRX3) a length-prefixed protobuf header or (CRX2) a public key and signature. The zip
 * is what follows; the signature is not checked (the archive is handed to the caller, who
 * loads it unpacked, where Chromium does not check it either).
 */
import { DomainError } from '../../../shared/errors/domain-error.js';

const MAGIC = 'Cr24';

export function crxToZip(buf: Buffer): Buffer {
  // Some stores answer a plain zip already.
  if (buf.length >= 4 && buf.readUInt32LE(0) === 0x04034b50) return buf;
  const bad = (why: string) =>
    new DomainError(502, 'chrome_store_bad_package', `the Chrome Web Store answered something that is not an extension package (${why})`);
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== MAGIC) throw bad('no CRX magic');
  const version = buf.readUInt32LE(4);
  let start: number;
  if (version === 3) start = 12 + buf.readUInt32LE(8);
  else if (version === 2) {
    if (buf.length < 16) throw bad('truncated CRX2 header');
    start = 16 + buf.readUInt32LE(8) + buf.readUInt32LE(12);
  } else throw bad(`unknown CRX version ${version}`);
  if (start + 4 > buf.length || buf.readUInt32LE(start) !== 0x04034b50) throw bad('no zip after the CRX header');
  return buf.subarray(start);
}
