import { describe, expect, it } from 'vitest';
import { FirstTouchNumbering, keySpaceFrom } from '../../../../../shared/formats/nettrace/first-touch-numbering.js';
import { RecordChunks } from '../../../../../shared/formats/nettrace/record-chunks.js';
import { countAddress, placeAddress } from '../../../../../shared/formats/nettrace/touch-sequence.js';
import { NEVER_CANCELLED } from '../../../../../shared/util/cancellation.js';

const NONE = 0xffffffff;
type Addr = [lo: number, hi: number];

/** Run the numbering over a touch sequence with early addresses (node index or NONE each). */
function numberAll(seq: Addr[], early: { a: Addr; node: number }[], base: number, space: ReturnType<typeof keySpaceFrom>) {
  const num = new FirstTouchNumbering(seq.length, early.length, space, 16);
  for (const e of early) countAddress(num, e.a[0], e.a[1]);
  for (const [lo, hi] of seq) countAddress(num, lo, hi);
  const slots = num.allocate();
  early.forEach((e, i) => placeAddress(num, slots, e.a[0], e.a[1], seq.length + i));
  seq.forEach(([lo, hi], p) => placeAddress(num, slots, lo, hi, p));
  num.resolve((e) => early[e].node !== NONE, NEVER_CANCELLED);
  const firstTouches = num.firstTouches;
  const nodeOf = Array.from(num.number(base, (e) => early[e].node, NEVER_CANCELLED).subarray(0, num.idCount));
  const earlyNodes = Array.from(num.earlyId, (id) => nodeOf[id]);
  const words = new Uint32Array(2 * (base + firstTouches)).fill(0xdead);
  num.addressesByNode(base + firstTouches, words);
  const touched = Array.from(num.translate(seq.length, NEVER_CANCELLED));
  return { num, firstTouches, touched, earlyNodes, words };
}

describe('FirstTouchNumbering: nodeFor over a whole touch sequence', () => {
  it('numbers a hand-made sequence exactly as nodeFor in order would', () => {
    const H = 0x7f12;
    const A: Addr = [0x1000, H];
    const B: Addr = [0x1040, H];
    const C: Addr = [0x1080, H];
    const D: Addr = [0x2000, H]; // referenced, no object
    const E: Addr = [0x3000, H]; // early (a weak root), never touched
    const Z: Addr = [0, 0]; // null: outside the key space (wide)
    const space = keySpaceFrom(0x1000, H, 0);
    expect(space).toEqual({ baseLo: 0x1000, baseHi: H, shift: 3 });
    // positions 0..6; C was numbered 1 by a root, B is known early but not numbered yet
    const r = numberAll([A, B, A, C, D, B, Z], [{ a: C, node: 1 }, { a: E, node: NONE }, { a: B, node: NONE }], 5, space);
    expect(r.touched).toEqual([5, 6, 5, 1, 7, 6, 8]);
    expect(r.firstTouches).toBe(4);
    expect(r.earlyNodes).toEqual([1, NONE, 6]);
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((p) => r.num.firstTouchesBefore(p))).toEqual([0, 1, 2, 2, 2, 3, 3, 4]);
    expect([0, 1, 2, 3].map((i) => r.num.positionOfFirstTouch(i))).toEqual([0, 1, 4, 6]);
    const addr = (n: number) => [r.words[2 * n], r.words[2 * n + 1]];
    expect([1, 5, 6, 7, 8].map(addr)).toEqual([C, A, B, D, Z]);
    expect(addr(0)).toEqual([0xdead, 0xdead]); // not an address's node: left alone
  });

  it('carries into the high half when keys pass a 4 GiB boundary', () => {
    const space = keySpaceFrom(0xffff_ff00, 0x10, 0);
    const seq: Addr[] = [[0xffff_ff00, 0x10], [0x0000_0100, 0x11], [0xffff_ff00, 0x10]];
    const r = numberAll(seq, [], 0, space);
    expect(r.touched).toEqual([0, 1, 0]);
    expect(Array.from(r.words)).toEqual([0xffff_ff00, 0x10, 0x100, 0x11]);
  });

  it('equals a Map-based nodeFor on seeded random sequences over several partitions', () => {
    let s = 7;
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
    for (let round = 0; round < 6; round++) {
      const hi = round % 3 === 2 ? 0 : 0x7f00 + round;
      const objects = 3000 + Math.floor(rnd() * 3000);
      const pick = (): Addr => {
        const x = rnd();
        if (x < 0.05) return [Math.floor(rnd() * 0xffffffff), hi + 1]; // far away: wide
        if (x < 0.08) return [0x1000_0000 + 8 * objects * 2 + 4 * Math.floor(rnd() * 100), hi]; // misaligned or stray
        return [(0x1000_0000 + 8 * Math.floor(rnd() * objects)) >>> 0, hi];
      };
      const seq = Array.from({ length: 30_000 + Math.floor(rnd() * 20_000) }, pick);
      const early = Array.from({ length: 50 }, (_, i) => ({ a: pick(), node: i % 3 === 0 ? 1 + i : NONE }));
      // the same address twice among early addresses cannot happen (they come from an AddressMap)
      const seenEarly = new Set<string>();
      const uniqueEarly = early.filter((e) => !seenEarly.has(e.a.join()) && seenEarly.add(e.a.join()));
      const base = 200;
      // hashed partitions, range partitions (the objects' highest address known), no key space
      const space = round % 3 === 0 ? keySpaceFrom(0x1000_0000, hi, 0) : round % 3 === 1 ? keySpaceFrom(0x1000_0000, hi, 0, 0x1000_0000 + 8 * (objects - 1), hi) : null;
      const r = numberAll(seq, uniqueEarly, base, space);
      expect(r.num.partitionBits).toBeGreaterThan(1);
      expect(r.num.rangeBits >= 0).toBe(round % 3 === 1);
      // naive: nodeFor in sequence order, early numbered ones fixed
      const map = new Map<string, number>();
      for (const e of uniqueEarly) if (e.node !== NONE) map.set(e.a.join(), e.node);
      let next = base;
      const want = seq.map((a) => {
        const k = a.join();
        if (!map.has(k)) map.set(k, next++);
        return map.get(k)!;
      });
      expect(r.touched).toEqual(want);
      expect(r.firstTouches).toBe(next - base);
      expect(r.earlyNodes).toEqual(uniqueEarly.map((e) => map.get(e.a.join()) ?? NONE));
      for (const [k, n] of map) if (n >= base) expect(`${r.words[2 * n]},${r.words[2 * n + 1]}`).toBe(k);
    }
  });
});

describe('RecordChunks', () => {
  it('keeps records in order across chunks of growing size, and two stores stay aligned', () => {
    const a = new RecordChunks(2, 8, 2);
    const b = new RecordChunks(3, 8, 2);
    for (let i = 0; i < 40; i += 5) {
      const ca = a.room(5);
      const cb = b.room(5);
      let wa = a.wordAt;
      let wb = b.wordAt;
      for (let k = i; k < i + 5; k++) {
        ca[wa++] = k;
        ca[wa++] = -k >>> 0;
        cb[wb++] = k;
        cb[wb++] = 2 * k;
        cb[wb++] = 3 * k;
      }
      a.commit(wa);
      b.commit(wb);
    }
    expect(a.length).toBe(40);
    expect(a.counts).toEqual(b.counts);
    expect(a.counts).toEqual([5, 5, 5, 5, 5, 5, 5, 5]); // 5-record events never share a chunk of 2–8 records
    const flat: number[] = [];
    a.chunks.forEach((ch, i) => flat.push(...Array.from(ch.subarray(0, 2 * a.counts[i])).filter((_, j) => j % 2 === 0)));
    expect(flat).toEqual(Array.from({ length: 40 }, (_, k) => k));
    a.release(0);
    expect(a.chunks[0].length).toBe(0);
  });
});
