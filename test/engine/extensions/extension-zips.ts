/**
 * Builds real extension zips for tests (yazl): an MV3 extension whose content script marks
 * every http page it runs on with `data-ext-<marker>` on <html> (the DOM is shared with the
 * page's world, so a test reads it with Playwright), and malformed archives.
 */
import crypto from 'node:crypto';
import yazl from 'yazl';

export async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const [name, body] of Object.entries(files)) z.addBuffer(Buffer.from(body), name);
  z.end();
  const chunks: Buffer[] = [];
  for await (const c of z.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** An extension that sets `data-ext-<marker>="1"` on http pages; `folder` nests it in one top folder. */
export function markerExtension(marker: string, folder = ''): Promise<Buffer> {
  const p = folder ? `${folder}/` : '';
  return zipOf({
    [`${p}manifest.json`]: JSON.stringify({
      manifest_version: 3,
      name: `marker ${marker}`,
      version: '1.0',
      content_scripts: [{ matches: ['http://*/*'], js: ['content.js'], run_at: 'document_end' }],
    }),
    [`${p}content.js`]: `document.documentElement.setAttribute('data-ext-${marker}', '1');`,
  });
}

export function sha256(b: Buffer): string {
  return crypto.createHash('sha256').update(b).digest('hex');
}

/** A CRX3 package: magic, version 3, a header of `headerLen` junk bytes, then the zip. */
export function crx3(zip: Buffer, headerLen = 37): Buffer {
  const head = Buffer.alloc(12);
  head.write('Cr24', 0, 'latin1');
  head.writeUInt32LE(3, 4);
  head.writeUInt32LE(headerLen, 8);
  return Buffer.concat([head, crypto.randomBytes(headerLen), zip]);
}
