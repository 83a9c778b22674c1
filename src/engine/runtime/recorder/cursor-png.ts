/**
 * The arrow cursor drawn into replays, as a PNG generated in code (no asset file to ship):
 * a 12×19 white arrow with a black outline on a transparent background. Encoded by hand
 * (IHDR, one zlib-deflated IDAT, IEND) since Node 20 has deflate but no image library.
 */
import zlib from 'node:zlib';

const ARROW = [
  'B...........',
  'BB..........',
  'BWB.........',
  'BWWB........',
  'BWWWB.......',
  'BWWWWB......',
  'BWWWWWB.....',
  'BWWWWWWB....',
  'BWWWWWWWB...',
  'BWWWWWWWWB..',
  'BWWWWWWWWWB.',
  'BWWWWWWBBBBB',
  'BWWWBWWB....',
  'BWWBBWWB....',
  'BWB..BWWB...',
  'BB...BWWB...',
  'B.....BWWB..',
  '......BWWB..',
  '.......BB...',
];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** The cursor PNG; its hotspot is the top-left pixel. */
export function cursorPng(): Buffer {
  const w = ARROW[0].length;
  const h = ARROW.length;
  const raw = Buffer.alloc((w * 4 + 1) * h);
  ARROW.forEach((row, y) => {
    raw[y * (w * 4 + 1)] = 0; // filter: none
    [...row].forEach((px, x) => {
      const o = y * (w * 4 + 1) + 1 + x * 4;
      const v = px === 'W' ? 255 : 0;
      raw[o] = raw[o + 1] = raw[o + 2] = v;
      raw[o + 3] = px === '.' ? 0 : 255;
    });
  });
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
