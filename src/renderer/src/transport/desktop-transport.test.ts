/**
 * The desktop transport's binary calls, on a recording stand-in for `window.api`: files become
 * byte arrays (IPC carries no Blobs) in order with their names and types, an upload over the
 * IPC limit is refused in the renderer with a message saying what to do, and main's Error
 * object comes back as an ApiError.
 */
import { describe, expect, it } from 'vitest';
import { DesktopTransport } from './desktop-transport.js';
import { ApiError } from './transport.js';
import { MAX_BINARY_BYTES, type ExposedApi } from '../../../shared/ipc/contract.js';

function recordingApi(answer: unknown = { result: { status: 200, headers: {}, data: new Uint8Array([1]), truncated: false } }) {
  const calls: Array<{ channel: string; args: unknown[] }> = [];
  const api = {
    invoke: async (channel: string, ...args: unknown[]) => {
      calls.push({ channel, args });
      return answer;
    },
    openStream: () => ({ dispose() {} }),
    on: () => () => {},
  } as unknown as ExposedApi;
  return { api, calls };
}

describe('desktop transport: binary calls', () => {
  it('sends files as bytes with their names and types, fields as strings, in order', async () => {
    const { api, calls } = recordingApi();
    const t = new DesktopTransport(api, () => 'proj_1');
    await t.binary({
      method: 'POST',
      path: '/browsers/s1/fs/upload',
      multipart: [
        { name: 'files[0][dest_path]', value: '/work/a.txt' },
        { name: 'files[0][file]', filename: 'a.txt', blob: new Blob(['héllo'], { type: 'text/plain' }) },
        { name: 'files[1][file]', filename: 'b.bin', blob: new Blob([new Uint8Array([0, 255])]) },
      ],
    });
    expect(calls).toHaveLength(1);
    expect(calls[0].channel).toBe('api:binary');
    const [req] = calls[0].args as [{ multipart: Array<Record<string, unknown>>; projectId: string }];
    expect(req.projectId).toBe('proj_1');
    expect(req.multipart[0]).toEqual({ name: 'files[0][dest_path]', value: '/work/a.txt' });
    expect(req.multipart[1]).toMatchObject({ name: 'files[0][file]', filename: 'a.txt', contentType: 'text/plain' });
    expect(new TextDecoder().decode(req.multipart[1].data as Uint8Array)).toBe('héllo');
    expect(req.multipart[2]).not.toHaveProperty('contentType');
    expect(Array.from(req.multipart[2].data as Uint8Array)).toEqual([0, 255]);
  });

  it('refuses an upload larger than one IPC message before reading it', async () => {
    const { api, calls } = recordingApi();
    const t = new DesktopTransport(api);
    const big = new Blob([new Uint8Array(MAX_BINARY_BYTES + 1)]);
    const err = await t
      .binary({ method: 'POST', path: '/browsers/s1/fs/upload', multipart: [{ name: 'f', filename: 'big.bin', blob: big }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toMatch(/more than the desktop app uploads at once .*use the API/);
    expect(calls).toHaveLength(0);
  });

  it("turns main's Error object into an ApiError", async () => {
    const { api } = recordingApi({ error: { name: 'ApiError', status: 404, code: 'not_found', message: 'file not found: /nope' } });
    const err = await new DesktopTransport(api).binary({ method: 'GET', path: '/browsers/s1/fs/read_file', query: { path: '/nope' } }).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'ApiError', status: 404, code: 'not_found', message: 'file not found: /nope' });
  });
});
