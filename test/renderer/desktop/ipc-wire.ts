/**
 * How the desktop harness carries IPC payloads across the playwright binding, which only
 * passes strings faithfully: JSON with byte arrays as `{"__u8": base64}`, decoded back into
 * Uint8Array on the other side — what Electron's structured-clone IPC delivers. Runs in Node
 * (the harness) and in the page (the electron stand-in inside the preload bundle).
 */
const hasBuffer = typeof Buffer !== 'undefined';

function toBase64(u8: Uint8Array): string {
  if (hasBuffer) return Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString('base64');
  let bin = '';
  for (let i = 0; i < u8.length; i += 0x8000) bin += String.fromCharCode(...u8.subarray(i, i + 0x8000));
  return btoa(bin);
}

function fromBase64(s: string): Uint8Array {
  if (hasBuffer) return new Uint8Array(Buffer.from(s, 'base64'));
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

export function encodeIpc(value: unknown): string {
  return JSON.stringify(value ?? null, (_k, v: unknown) => (v instanceof Uint8Array ? { __u8: toBase64(v) } : v));
}

export function decodeIpc(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (typeof o.__u8 === 'string' && Object.keys(o).length === 1) return fromBase64(o.__u8);
    }
    return v;
  });
}
