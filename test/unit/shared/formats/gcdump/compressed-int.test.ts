import { describe, expect, it } from 'vitest';
import { compressedIntLength, decodeCompressedInt, encodeCompressedInt } from '../../../../../shared/formats/gcdump/compressed-int.js';
import { mulberry32 } from '../../../../helpers/random-graph.js';

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');

function encode(v: number): Uint8Array {
  const out = new Uint8Array(8);
  return out.subarray(0, encodeCompressedInt(v, out, 0));
}

describe('compressed signed int (gcdump-format.md §6.3)', () => {
  // The table of the spec, verified there against fixture bytes.
  const table: [number, string][] = [
    [0, '00'],
    [1, '01'],
    [-1, '7f'],
    [63, '3f'],
    [64, '80 40'],
    [-64, '40'],
    [-65, 'ff 3f'],
    [300, '82 2c'],
    [-530, 'fb 6e'],
    [2 ** 27, '80 c0 80 80 00'],
    [2 ** 31 - 1, '87 ff ff ff 7f'],
    [-(2 ** 31), 'f8 80 80 80 00'],
  ];

  it.each(table)('%d encodes as %s and decodes back', (value, bytes) => {
    const enc = encode(value);
    expect(hex(enc)).toBe(bytes);
    expect(compressedIntLength(value)).toBe(enc.length);
    const r = decodeCompressedInt(enc, 0);
    expect(r.value).toBe(value);
    expect(r.end).toBe(enc.length);
  });

  it('decodes the fixture examples of §9.2 (not LEB128)', () => {
    expect(decodeCompressedInt(Uint8Array.of(0x83, 0x76), 0).value).toBe(502);
    expect(decodeCompressedInt(Uint8Array.of(0x9f, 0x12), 0).value).toBe(3986);
    expect(decodeCompressedInt(Uint8Array.of(0x98, 0x67), 0).value).toBe(3175);
    expect(decodeCompressedInt(Uint8Array.of(0xff, 0x39), 0).value).toBe(-71);
  });

  it('uses the shortest form at every length boundary', () => {
    const bounds: [number, number][] = [
      [-(2 ** 6), 1], [2 ** 6 - 1, 1], [2 ** 6, 2], [-(2 ** 6) - 1, 2],
      [-(2 ** 13), 2], [2 ** 13 - 1, 2], [2 ** 13, 3], [-(2 ** 13) - 1, 3],
      [-(2 ** 20), 3], [2 ** 20 - 1, 3], [2 ** 20, 4], [-(2 ** 20) - 1, 4],
      [-(2 ** 27), 4], [2 ** 27 - 1, 4], [2 ** 27, 5], [-(2 ** 27) - 1, 5],
    ];
    for (const [v, len] of bounds) {
      expect(encode(v).length, String(v)).toBe(len);
      expect(decodeCompressedInt(encode(v), 0).value).toBe(v);
    }
  });

  it('round-trips 20,000 seeded random i32 values in one stream', () => {
    const rnd = mulberry32(20240611);
    const values = new Int32Array(20_000);
    for (let i = 0; i < values.length; i++) {
      // Mix magnitudes so every encoded length is common.
      const bits = 1 + Math.floor(rnd() * 32);
      values[i] = Math.floor(rnd() * 2 ** 32) >> (32 - bits);
    }
    const buf = new Uint8Array(values.length * 5);
    let pos = 0;
    for (const v of values) pos = encodeCompressedInt(v, buf, pos);
    const lengths = new Set<number>();
    let at = 0;
    const r = { value: 0, end: 0 };
    const mismatches: string[] = [];
    for (let i = 0; i < values.length; i++) {
      decodeCompressedInt(buf, at, r);
      if (r.value !== values[i] || r.end - at !== compressedIntLength(values[i])) mismatches.push(`${values[i]} -> ${r.value}`);
      lengths.add(r.end - at);
      at = r.end;
    }
    expect(mismatches).toEqual([]);
    expect(at).toBe(pos);
    expect([...lengths].sort()).toEqual([1, 2, 3, 4, 5]);
  });
});
