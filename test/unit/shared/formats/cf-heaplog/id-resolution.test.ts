import { describe, expect, it } from 'vitest';
import { readCfHeapLog } from '../../../../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import { IdColumn, enterDefinedIds, resolveIdsInPlace } from '../../../../../shared/formats/cf-heaplog/id-resolution.js';
import { IdTable } from '../../../../../shared/formats/cf-heaplog/id-table.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../../../../shared/graph/heap-graph.js';
import { NEVER_CANCELLED } from '../../../../../shared/util/cancellation.js';
import { mulberry32 } from '../../../../helpers/prng.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { cfColliding32, cfColliding64, seededHashKey, widenIds } from '../../../../helpers/adversarial-ids.js';

const source = (text: string): MemoryByteSource => new MemoryByteSource(new TextEncoder().encode(text), 'random.log');
const key = (lo: number, hi: number): string => `${hi}:${lo}`;

describe('bulk id resolution', () => {
  it('matches a Map oracle: first record wins, unknown ids get fresh ordinals once each (32- and 64-bit ids)', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const r = mulberry32(seed);
      const wide = seed % 2 === 0;
      const pool = 50 + Math.floor(r() * 3000);
      const id = (k: number): [number, number] => [(k * 2654435761) >>> 0, wide && k % 3 === 0 ? k % 7 : 0];
      const defs = new IdColumn(16);
      const oracle = new Map<string, number>();
      const dups: number[] = [];
      const nDefs = Math.floor(r() * pool);
      for (let i = 0; i < nDefs; i++) {
        const [lo, hi] = id(Math.floor(r() * pool));
        defs.push(lo, hi);
        if (oracle.has(key(lo, hi))) dups.push(i);
        else oracle.set(key(lo, hi), i);
      }
      const table = new IdTable(16); // tiny on purpose: resolution must survive the table growing
      const dup = enterDefinedIds(table, defs, nDefs, NEVER_CANCELLED);
      expect(dup ? [...dup.keys()].filter((i) => dup[i] === 1) : []).toEqual(dups);

      const refs = new IdColumn(16);
      const want: number[] = [];
      const refIds: [number, number][] = [];
      const fresh = new Map<string, true>();
      const nRefs = Math.floor(r() * 4 * pool);
      for (let k = 0; k < nRefs; k++) {
        const [lo, hi] = id(Math.floor(r() * pool * 1.3));
        refs.push(lo, hi);
        refIds.push([lo, hi]);
        want.push(oracle.get(key(lo, hi)) ?? -1);
        if (!oracle.has(key(lo, hi))) fresh.set(key(lo, hi), true);
      }
      const unknown = new IdColumn(16);
      const first = nDefs + 10;
      const next = resolveIdsInPlace(table, refs, nRefs, first, unknown, NEVER_CANCELLED);
      expect(next - first).toBe(fresh.size);
      expect(unknown.length).toBe(fresh.size);
      // each unknown id got one ordinal in [first, next), listed in `unknown` at ordinal - first
      const freshOf = new Map<string, number>();
      for (let j = 0; j < unknown.length; j++) freshOf.set(key(unknown.lo.raw[j], unknown.hiAt(j)), first + j);
      expect([...freshOf.keys()].sort()).toEqual([...fresh.keys()].sort());
      const expected = want.map((w, k) => (w >= 0 ? w : freshOf.get(key(refIds[k][0], refIds[k][1]))));
      expect(Array.from(refs.lo.raw.subarray(0, nRefs))).toEqual(expected);
    }
  });
});

describe('bulk id resolution of crafted ids (hash flooding, issue 13)', () => {
  // Ids whose old fixed hash was one value (or 0 … n − 1): defined, duplicated, referenced and
  // dangling, through the table as section-graph.ts sizes it. Results as a Map says; the probes
  // every lookup costs beyond its first (probeStats) linear in the ids, where the old hash made
  // them ~n²/2 (2e8 here).
  const n = 20_000;
  for (const [name, all] of [
    ['32-bit', widenIds(cfColliding32(n + n / 4))],
    ['64-bit', cfColliding64(n + n / 4)],
  ] as const) {
    it(`${name} ids: ordinals as a Map gives them, probes linear`, () => {
      for (const seed of [0, 1]) {
        const r = mulberry32(7 + seed);
        const defs = new IdColumn(16);
        const oracle = new Map<string, number>();
        const dups: number[] = [];
        for (let i = 0; i < n; i++) {
          const k = i % 97 === 96 ? Math.floor(r() * i) : i; // ~1% repeat an earlier id
          const [lo, hi] = [all[2 * k], all[2 * k + 1]];
          defs.push(lo, hi);
          if (oracle.has(key(lo, hi))) dups.push(i);
          else oracle.set(key(lo, hi), i);
        }
        const table = new IdTable(Math.ceil((n + 1024) / 0.7), seed === 0 ? undefined : seededHashKey(seed));
        const dup = enterDefinedIds(table, defs, n, NEVER_CANCELLED);
        expect(dup ? [...dup.keys()].filter((i) => dup[i] === 1) : []).toEqual(dups);
        const refs = new IdColumn(16);
        const nRefs = 2 * n;
        const want: (number | string)[] = [];
        for (let i = 0; i < nRefs; i++) {
          const k = Math.floor(r() * (n + n / 4)); // a fifth of them never defined
          const [lo, hi] = [all[2 * k], all[2 * k + 1]];
          refs.push(lo, hi);
          want.push(oracle.get(key(lo, hi)) ?? key(lo, hi));
        }
        const unknown = new IdColumn(16);
        const next = resolveIdsInPlace(table, refs, nRefs, n, unknown, NEVER_CANCELLED);
        const freshOf = new Map<string, number>();
        for (let j = 0; j < unknown.length; j++) freshOf.set(key(unknown.lo.raw[j], unknown.hiAt(j)), n + j);
        expect(next - n).toBe(freshOf.size);
        expect(Array.from(refs.lo.raw.subarray(0, nRefs))).toEqual(want.map((w) => (typeof w === 'number' ? w : freshOf.get(w))));
        const s = table.probeStats();
        expect(table.size).toBe(oracle.size + freshOf.size);
        expect(s.total).toBeLessThanOrEqual(table.size);
        expect(s.max).toBeLessThanOrEqual(100);
      }
    });
  }
});

describe('readCfHeapLog against a naive oracle on random logs', () => {
  it('duplicates, dangling ids (first reference wins the lower ordinal, roots interleaved by line), 64-bit ids; objects in increasing id order too (the merge-join path)', async () => {
    for (let seed = 1; seed <= 60; seed++) {
      const r = mulberry32(100 + seed);
      const increasing = seed > 30;
      const ids = Array.from({ length: 60 }, (_, k) => (seed % 3 === 0 && k % 4 === 0 ? `${(k + 1).toString(16)}0000000${k % 10}` : (0x1000 + 16 * k).toString(16)));
      const ascending = [...ids].sort((x, y) => (BigInt('0x' + x) < BigInt('0x' + y) ? -1 : 1));
      let cursor = -1;
      const lines = ['a 2 app.exe', 't 1 T'];
      const described = new Map<string, { size: number; refs: string[] }>();
      const firstRef: string[] = []; // ids in order of first reference, described or not
      const see = (x: string): void => {
        if (!firstRef.includes(x)) firstRef.push(x);
      };
      let dupCount = 0;
      for (let i = 0; i < 120; i++) {
        let x = ids[Math.floor(r() * ids.length)];
        let rootOnly = r() < 0.15;
        if (increasing && !rootOnly) {
          cursor += 1 + Math.floor(r() * 2); // skips some ids: those stay undescribed
          if (cursor < ascending.length) x = ascending[cursor];
          else rootOnly = true;
        }
        if (rootOnly) {
          lines.push(`r ${x} 1 0`);
          see(x);
          continue;
        }
        const refs = Array.from({ length: Math.floor(r() * 4) }, () => ids[Math.floor(r() * ids.length)]);
        const size = 4 + Math.floor(r() * 100);
        lines.push(`o ${x} 1 ${size.toString(16)}${refs.map((y) => ' ' + y).join('')}`);
        if (described.has(x)) {
          dupCount++;
        } else {
          described.set(x, { size, refs });
          for (const y of refs) see(y);
        }
      }
      lines.push('c app.exe');
      const g = await readCfHeapLog(source(lines.join('\n')));
      const node = new Map<string, number>();
      for (let n = 0; n < g.nodeCount; n++) if ((g.nodeFlags[n] & NODE_PSEUDO) === 0) node.set(g.address[n].toString(16), n);
      const dangling = firstRef.filter((x) => !described.has(x));
      expect(node.size).toBe(described.size + dangling.length);
      // described objects first, in file order; then dangling ids in first-reference order
      expect([...described.keys()].map((x) => node.get(x))).toEqual([...described.keys()].map((_, i) => i));
      expect(dangling.map((x) => node.get(x))).toEqual(dangling.map((_, i) => described.size + i));
      for (const [x, d] of described) {
        const n = node.get(x)!;
        expect(g.selfSize[n]).toBe(d.size);
        expect(Array.from(g.edgeTarget.subarray(g.firstEdge[n], g.firstEdge[n + 1]))).toEqual(d.refs.map((y) => node.get(y)));
      }
      for (const x of dangling) expect(g.nodeFlags[node.get(x)!] & NODE_UNDEFINED).toBe(NODE_UNDEFINED);
      expect(g.problems.counts['duplicate-id'] ?? 0).toBe(dupCount);
      expect(g.problems.counts['dangling-reference'] ?? 0).toBe(dangling.length);
      expect(g.problems.entries.filter((p) => p.code === 'dangling-reference').map((p) => /object 0x(\w+)/.exec(p.message)![1])).toEqual(dangling.slice(0, g.problems.entries.filter((p) => p.code === 'dangling-reference').length));
    }
  });
});
