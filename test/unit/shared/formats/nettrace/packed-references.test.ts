import { describe, expect, it } from 'vitest';
import { BLOCK, PackedReferences } from '../../../../../shared/formats/nettrace/packed-references.js';
import { InPlaceWords } from '../../../../../shared/util/in-place-words.js';
import { mulberry32 as rng } from '../../../../helpers/prng.js';

/** Append (lo, hi) pairs as HeapDumpCollection.edges does (room, encode, commit). */
function append(refs: PackedReferences, addrs: [number, number][]): void {
  const out = refs.room(addrs.length);
  let w = refs.wordAt;
  for (const [lo, hi] of addrs) out[w++] = refs.encode(lo, hi);
  refs.commit(w);
}

describe('InPlaceWords', () => {
  it('grows in place in a growable SharedArrayBuffer: the words never move and keep their values', () => {
    const s = new InPlaceWords(16, 1 << 20);
    expect(s.inPlace).toBe(true);
    const first = s.words;
    first[15] = 7;
    const grown = s.ensure(100_000);
    expect(grown.buffer).toBe(first.buffer);
    expect(grown.length).toBeGreaterThanOrEqual(100_000);
    expect(grown[15]).toBe(7);
    expect(s.ensure(10)).toBe(grown); // no shrink, no new view
  });

  it('falls back to copying past its reservation, keeping the first `keep` words', () => {
    const s = new InPlaceWords(8, 64);
    s.words.set([1, 2, 3, 4, 5, 6, 7, 8]);
    const bigger = s.ensure(1000, 5);
    expect(s.inPlace).toBe(false);
    expect(bigger.length).toBeGreaterThanOrEqual(1000);
    expect(Array.from(bigger.subarray(0, 8))).toEqual([1, 2, 3, 4, 5, 0, 0, 0]);
  });
});

describe('InPlaceWords in plain memory (not shared)', () => {
  it('takes its whole bound at once when bounded, so it never moves', () => {
    const s = new InPlaceWords(16, 100_000, false);
    expect(s.inPlace).toBe(false);
    expect(s.words.buffer instanceof SharedArrayBuffer).toBe(false);
    expect(s.capacity).toBe(100_000);
    const first = s.words;
    first[99_999] = 3;
    expect(s.ensure(100_000)).toBe(first);
  });

  it('doubles from its first size when unbounded, keeping the first `keep` words', () => {
    const s = new InPlaceWords(4, 1 << 20, false, false);
    expect(s.capacity).toBe(4);
    s.words.set([1, 2, 3, 4]);
    const grown = s.ensure(5, 4);
    expect(grown.length).toBe(8);
    expect(Array.from(grown.subarray(0, 5))).toEqual([1, 2, 3, 4, 0]);
  });
});

describe('PackedReferences', () => {
  it('round-trips every address: 7 windows of 4 GiB for 8-byte pointers, escapes for the 8th window and misaligned ones', () => {
    const refs = new PackedReferences(8);
    const r = rng(5);
    const his = [0x7f12, 0x7f13, 0x10, 0, 0xffffffff, 0x1234, 0x7f14, 0x99, 0x7f12 + 64];
    const addrs: [number, number][] = [];
    for (let i = 0; i < 5000; i++) {
      const hi = his[Math.floor(r() * his.length)];
      const lo = (Math.floor(r() * 2 ** 29) * 8 + (r() < 0.05 ? 4 : 0)) >>> 0; // 5% misaligned
      addrs.push([lo, hi]);
    }
    addrs.push([0, 0], [0xfffffff8, 0xffffffff], [1, 0x7f12]);
    append(refs, addrs);
    expect(refs.windows).toBe(7);
    const words = refs.column(0, 0);
    expect(words.length).toBe(addrs.length);
    const back = Array.from(words, (w) => [refs.lo(w), refs.hi(w)]);
    expect(back).toEqual(addrs);
    // Windows go to the first 7 high words seen on aligned addresses; everything else escapes.
    const windows: number[] = [];
    let escaped = 0;
    for (const [lo, hi] of addrs) {
      if ((lo & 7) === 0 && windows.length < 7 && !windows.includes(hi)) windows.push(hi);
      if ((lo & 7) !== 0 || !windows.includes(hi)) escaped++;
    }
    expect(Array.from(refs.his.subarray(0, 7))).toEqual(windows);
    expect(refs.escapes.length / 2).toBe(escaped);
  });

  it('packs 4-byte pointers by 4-byte alignment (3 windows; the high word is 0)', () => {
    const refs = new PackedReferences(4);
    const addrs: [number, number][] = [
      [0x1000_0004, 0],
      [0xffff_fffc, 0],
      [0x1000_0002, 0],
    ];
    append(refs, addrs);
    expect(refs.escapes.length / 2).toBe(1); // only the misaligned one
    const words = refs.column(0, 0);
    expect(Array.from(words, (w) => [refs.lo(w), refs.hi(w)])).toEqual(addrs);
  });

  it('gives the column as the same words, with room in front and behind, or moved up when the front is larger', () => {
    const small = new PackedReferences(8);
    append(small, [
      [0x1000, 1],
      [0x2000, 1],
    ]);
    const col = small.column(3, 2);
    expect(col.length).toBe(3 + 2 + 2);
    expect([small.lo(col[3]), small.lo(col[4])]).toEqual([0x1000, 0x2000]);
    expect(() => small.room(1)).toThrow(/after its column was taken/);

    const big = new PackedReferences(8);
    append(big, [
      [0x1000, 1],
      [0x2000, 1],
    ]);
    const at = 100_000; // more pseudo-node edges than the reserved front
    const moved = big.column(at, 1);
    expect(moved.length).toBe(at + 3);
    expect([big.lo(moved[at]), big.lo(moved[at + 1])]).toEqual([0x1000, 0x2000]);
  });

  it('counts block by block (partsOf), a block being BLOCK references', () => {
    const refs = new PackedReferences(8);
    expect(refs.partsOf(0)).toBe(refs.partsOf(BLOCK - 1));
    expect(refs.partsOf(BLOCK)).not.toBe(refs.partsOf(0));
    expect(refs.parts.length).toBe(2);
  });
});
