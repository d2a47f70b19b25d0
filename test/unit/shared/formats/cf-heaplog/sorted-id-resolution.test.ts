import { describe, expect, it } from 'vitest';
import { IdColumn } from '../../../../../shared/formats/cf-heaplog/id-resolution.js';
import { resolveAgainstSortedIds, type SortedIdWay } from '../../../../../shared/formats/cf-heaplog/sorted-id-resolution.js';
import { NEVER_CANCELLED } from '../../../../../shared/util/cancellation.js';
import { mulberry32 } from '../../../../helpers/prng.js';

const TWO32 = 4294967296;

/**
 * Sorted defined ids → ordinals, against a Map. The shapes pick each way through
 * resolveAgainstSortedIds: 32-bit ids (one partition), ids across 2^32 (split by high half),
 * ids all above 2^32 (one non-empty partition after the split), ids past 2^43 (the wide way),
 * and references that all name one id (every digit trivial: no pass at all). References also
 * name ids below the first, above the last and between the defined ones.
 */
describe('resolveAgainstSortedIds', () => {
  const shapes = [
    { name: '32-bit ids', base: 0x10000, stride: (r: () => number) => 4 * (1 + Math.floor(r() * 9)), offGrid: 0.1, same: false },
    { name: 'ids across 2^32', base: 0xfff00000, stride: (r: () => number) => 1 + Math.floor(r() * 1200), offGrid: 0.2, same: false },
    { name: 'ids all above 2^32', base: 5 * TWO32 + 17, stride: (r: () => number) => 1 + Math.floor(r() * 9), offGrid: 0.1, same: false },
    { name: 'ids past 2^43 (wide)', base: 3, stride: (r: () => number) => (r() < 0.01 ? 2 ** 43 : 1 + Math.floor(r() * 9)), offGrid: 0.1, same: false },
    { name: 'every reference names one id', base: 0x4000, stride: () => 8, offGrid: 0, same: true },
  ];
  const ways: SortedIdWay[] = ['auto', 'global', 'small-ranges'];
  for (const shape of shapes) for (const way of ways) {
    it(`matches a Map oracle: ${shape.name} (${way})`, () => {
      for (let seed = 1; seed <= 25; seed++) {
        const r = mulberry32(seed * 31 + shape.base);
        const nDefs = seed === 1 ? 1 : Math.floor(r() * 2000);
        const values: number[] = [];
        for (let i = 0, v = shape.base; i < nDefs; i++, v += shape.stride(r)) values.push(v);
        const defs = new IdColumn(16);
        const ordinal = new Map<number, number>();
        values.forEach((v, i) => {
          defs.push(v % TWO32, Math.floor(v / TWO32));
          ordinal.set(v, i);
        });
        const last = values.length ? values[values.length - 1] : shape.base;
        const refs = new IdColumn(16);
        const refValues: number[] = [];
        const nRefs = Math.floor(r() * 5000);
        for (let k = 0; k < nRefs; k++) {
          let v: number;
          const u = r();
          if (shape.same && values.length) v = values[values.length >> 1];
          else if (values.length && u > shape.offGrid) v = values[Math.floor(r() * values.length)];
          else if (u < shape.offGrid / 4) v = Math.max(0, shape.base - 1 - Math.floor(r() * 50)); // below the first
          else if (u < shape.offGrid / 2) v = last + 1 + Math.floor(r() * 50); // above the last
          else v = shape.base + Math.floor(r() * (last - shape.base + 1)); // anywhere between: defined or not
          refValues.push(v);
          refs.push(v % TWO32, Math.floor(v / TWO32));
        }
        const fresh = new IdColumn(16);
        const firstFresh = nDefs + 5;
        const next = resolveAgainstSortedIds(defs, nDefs, refs, nRefs, firstFresh, fresh, NEVER_CANCELLED, way);
        const unknown = [...new Set(refValues.filter((v) => !ordinal.has(v)))];
        expect(next - firstFresh).toBe(unknown.length);
        expect(fresh.length).toBe(unknown.length);
        const freshOrdinal = new Map<number, number>();
        for (let j = 0; j < fresh.length; j++) freshOrdinal.set(fresh.hiAt(j) * TWO32 + fresh.lo.raw[j], firstFresh + j);
        // fresh ordinals follow ascending ids, whichever way resolved them
        expect([...freshOrdinal.keys()]).toEqual(unknown.sort((a, b) => a - b));
        const want = refValues.map((v) => ordinal.get(v) ?? freshOrdinal.get(v));
        expect(Array.from(refs.lo.raw.subarray(0, nRefs))).toEqual(want);
      }
    });
  }
});
