/**
 * The tray icon, drawn here as a PNG (no image files to ship or keep in step): a dot in the
 * engine state's colour on a transparent square, antialiased at its edge. Electron's nativeImage
 * reads it from the buffer; at 2× the OS scales it down crisply.
 */
import zlib from 'node:zlib';
import type { TrayIconState } from './tray-menu.js';

/** RGB per state: the console's --ok, --warn, --bad and --text-faint (styles/tokens.css). */
export const TRAY_COLORS: Record<TrayIconState, [number, number, number]> = {
  running: [0x1f, 0x8a, 0x4c],
  busy: [0x9a, 0x61, 0x00],
  error: [0xc4, 0x30, 0x2b],
  stopped: [0x8a, 0x94, 0xa3],
};

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body) >>> 0);
  return Buffer.concat([len, body, crc]);
}

export function trayIconPng(state: TrayIconState, size = 32): Buffer {
  const [r, g, b] = TRAY_COLORS[state];
  const rows: Buffer[] = [];
  const c = (size - 1) / 2;
  const radius = size * 0.4;
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4); // filter byte 0, then RGBA
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x - c, y - c);
      const alpha = Math.max(0, Math.min(1, radius + 0.5 - d));
      row.set([r, g, b, Math.round(alpha * 255)], 1 + x * 4);
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
