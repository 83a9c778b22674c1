/**
 * The one cursor-download loop of the clients (Electron main saves to a file, the renderer to
 * a Blob): fetches chunk after chunk while `X-Has-More` is true, following `X-Next-Cursor`,
 * checks each chunk against its `X-Content-Sha256` when the server sends one, and refuses a
 * cursor it has already followed (a server that would loop forever).
 */

/** One answer of the chunk endpoint, headers lower-cased. */
export interface CursorChunk {
  data: Uint8Array;
  header(name: 'x-has-more' | 'x-next-cursor' | 'x-content-sha256'): string | undefined;
}

export class CursorDownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DownloadError';
  }
}

/** What this needs of Web Crypto (typed here: shared/ compiles with the DOM lib for the renderer and without it for the engine). */
interface Sha256Digest {
  digest(algorithm: 'SHA-256', data: Uint8Array<ArrayBuffer>): Promise<ArrayBuffer>;
}

/** Hex SHA-256, or undefined where there is no digest: browsers offer one only in secure contexts (a console on plain http has none). */
async function sha256Hex(data: Uint8Array): Promise<string | undefined> {
  const subtle: Sha256Digest | undefined = globalThis.crypto?.subtle;
  if (!subtle) return undefined;
  const digest = await subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * `fetchChunk(cursor)` asks for one chunk (no cursor for the first); `onChunk` stores it.
 * With `followCursor` false only the first answer is taken.
 */
export async function downloadByCursor(
  fetchChunk: (cursor: string | undefined) => Promise<CursorChunk>,
  onChunk: (data: Uint8Array) => Promise<void> | void,
  followCursor: boolean,
): Promise<{ bytes: number; chunks: number }> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  let bytes = 0;
  let chunks = 0;
  for (;;) {
    const res = await fetchChunk(cursor);
    const sha = res.header('x-content-sha256');
    const actual = sha ? await sha256Hex(res.data) : undefined;
    if (sha && actual !== undefined && actual !== sha.toLowerCase()) throw new CursorDownloadError(`chunk ${chunks + 1} failed its SHA-256 check`);
    await onChunk(res.data);
    bytes += res.data.byteLength;
    chunks += 1;
    if (!followCursor || res.header('x-has-more') !== 'true') break;
    cursor = res.header('x-next-cursor');
    if (!cursor || seen.has(cursor)) throw new CursorDownloadError('the server sent no new X-Next-Cursor while X-Has-More is true');
    seen.add(cursor);
  }
  return { bytes, chunks };
}
