import { describe, expect, it } from 'vitest';
import { CursorDownloadError, downloadByCursor, type CursorChunk } from './cursor-download.js';

/** Hex SHA-256 with Web Crypto (shared/ code and its tests use no Node builtins). */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A chunk endpoint answering `pages[cursor ?? '']` = [body, next cursor or none]. */
function server(pages: Record<string, [string, string?]>, opts: { badSha?: boolean } = {}) {
  const asked: Array<string | undefined> = [];
  const fetchChunk = async (cursor: string | undefined): Promise<CursorChunk> => {
    asked.push(cursor);
    const [body, next] = pages[cursor ?? '']!;
    const data = new TextEncoder().encode(body);
    const sha = await sha256(opts.badSha ? 'other' : body);
    const headers: Record<string, string | undefined> = { 'x-has-more': next ? 'true' : 'false', 'x-next-cursor': next, 'x-content-sha256': sha };
    return { data, header: (n) => headers[n] };
  };
  return { fetchChunk, asked };
}

describe('downloadByCursor', () => {
  it('follows X-Next-Cursor until X-Has-More is false, checking each SHA-256', async () => {
    const s = server({ '': ['a', 'c1'], c1: ['bb', 'c2'], c2: ['ccc'] });
    const got: string[] = [];
    expect(await downloadByCursor(s.fetchChunk, (d) => void got.push(new TextDecoder().decode(d)), true)).toEqual({ bytes: 6, chunks: 3 });
    expect(got).toEqual(['a', 'bb', 'ccc']);
    expect(s.asked).toEqual([undefined, 'c1', 'c2']);
  });

  it('takes only the first answer when not following the cursor', async () => {
    const s = server({ '': ['a', 'c1'] });
    expect(await downloadByCursor(s.fetchChunk, () => {}, false)).toEqual({ bytes: 1, chunks: 1 });
  });

  it('refuses a chunk whose SHA-256 does not match', async () => {
    await expect(downloadByCursor(server({ '': ['a'] }, { badSha: true }).fetchChunk, () => {}, true)).rejects.toThrow(/chunk 1 failed its SHA-256 check/);
  });

  it('refuses a server that sends a cursor it already sent (a loop), not only the same one twice in a row', async () => {
    const s = server({ '': ['a', 'c1'], c1: ['b', 'c2'], c2: ['c', 'c1'] });
    await expect(downloadByCursor(s.fetchChunk, () => {}, true)).rejects.toBeInstanceOf(CursorDownloadError);
    expect(s.asked).toEqual([undefined, 'c1', 'c2']);
  });
});
