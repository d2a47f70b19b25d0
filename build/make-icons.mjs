// Generates the app icons as PNGs (build/icons/<N>x<N>.png and build/icon.png), with no external
// tools or downloads: a tiny rasterizer (4×4 supersampling) and a minimal PNG encoder (zlib from
// Node). The design: a rounded dark square holding three "heap" bars of decreasing width, the
// largest in orange (what the dominator view leads with). Run: node build/make-icons.mjs
// electron-builder takes build/icons/ for Linux and build/icon.png (512) for macOS/Windows,
// converting it itself; nothing compiled ever goes in build/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const here = dirname(fileURLToPath(import.meta.url));
const SIZES = [16, 32, 48, 64, 128, 256, 512];

const BG = [31, 41, 55];
const BARS = [
  { y0: 0.24, y1: 0.38, x1: 0.8, c: [249, 115, 22] },
  { y0: 0.43, y1: 0.57, x1: 0.62, c: [45, 212, 191] },
  { y0: 0.62, y1: 0.76, x1: 0.44, c: [96, 165, 250] },
];

/** Colour and coverage at (u, v) in [0,1]² (null = transparent). */
function sample(u, v) {
  const r = 0.2; // corner radius
  const cx = Math.min(Math.max(u, r), 1 - r);
  const cy = Math.min(Math.max(v, r), 1 - r);
  if ((u - cx) ** 2 + (v - cy) ** 2 > r * r) return null;
  for (const b of BARS) if (v >= b.y0 && v <= b.y1 && u >= 0.2 && u <= b.x1) return b.c;
  return BG;
}

function render(n) {
  const ss = 4;
  const px = Buffer.alloc(n * n * 4);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const c = sample((x + (sx + 0.5) / ss) / n, (y + (sy + 0.5) / ss) / n);
          if (!c) continue;
          r += c[0]; g += c[1]; b += c[2]; a++;
        }
      }
      const o = (y * n + x) * 4;
      if (a > 0) {
        px[o] = Math.round(r / a); px[o + 1] = Math.round(g / a); px[o + 2] = Math.round(b / a);
        px[o + 3] = Math.round((a / (ss * ss)) * 255);
      }
    }
  }
  return px;
}

const CRC = new Uint32Array(256).map((_, k) => {
  let c = k;
  for (let i = 0; i < 8; i++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function png(n, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(n, 0);
  ihdr.writeUInt32BE(n, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc(n * (n * 4 + 1));
  for (let y = 0; y < n; y++) rgba.copy(raw, y * (n * 4 + 1) + 1, y * n * 4, (y + 1) * n * 4); // filter byte 0
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

mkdirSync(join(here, 'icons'), { recursive: true });
for (const n of SIZES) {
  const file = png(n, render(n));
  writeFileSync(join(here, 'icons', `${n}x${n}.png`), file);
  if (n === 512) writeFileSync(join(here, 'icon.png'), file);
  console.log(`icons/${n}x${n}.png ${file.length} bytes`);
}
