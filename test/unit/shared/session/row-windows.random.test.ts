import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../../../shared/graph/heap-graph.js';
import type { FileEntry, FileToken, ObjectSortKey, SessionId, SortDir, TypeSortKey } from '../../../../shared/ipc/contract.js';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import { mulberry32, randomGraph } from '../../../helpers/random-graph.js';

// Seeded comparison of every sorted, filtered window against a naive oracle: count and sum per type
// by a plain loop, one Array.sort over all rows, then slice. Retained sizes come from analyzeGraph
// (checked against a naive dominator oracle by its own tests); here we check the windowing.
const file: FileEntry = { token: 't' as FileToken, name: 'r.gcdump', displayPath: 'r', size: 0, modifiedMs: 0, source: 'path', formatHint: null, exists: true };
const TYPE_KEYS: TypeSortKey[] = ['type', 'module', 'count', 'shallowSize', 'retainedSize', 'scaledCount', 'scaledShallowSize'];
const OBJECT_KEYS: ObjectSortKey[] = ['address', 'size', 'retainedSize', 'generation'];

describe('session windows against a naive oracle (seeded)', () => {
  for (let seed = 1; seed <= 25; seed++) {
    it(`seed ${seed}: type and object windows equal slices of a full naive sort`, () => {
      const rnd = mulberry32(seed * 7919);
      const g = randomGraph(seed, { nodes: 20 + Math.floor(rnd() * 300), types: 3 + Math.floor(rnd() * 40), avgDegree: 2 });
      const s = new SnapshotSession(g, { sessionId: 's' as SessionId, file, parseMs: 0 });
      s.runAnalysis();
      const a = analyzeGraph(g);
      // naive per-type table
      const count = new Map<number, number>();
      const shallow = new Map<number, number>();
      for (let n = 0; n < g.nodeCount; n++) {
        if (g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
        const t = g.nodeType[n];
        count.set(t, (count.get(t) ?? 0) + 1);
        shallow.set(t, (shallow.get(t) ?? 0) + g.selfSize[n]);
      }
      const name = (t: number) => g.types.names[t];
      const byName = (x: number, y: number) => (name(x) < name(y) ? -1 : name(x) > name(y) ? 1 : x - y);
      for (const key of TYPE_KEYS) {
        for (const dir of ['asc', 'desc'] as SortDir[]) {
          for (const filter of ['', 't1', 'T2', 'zz']) {
            let ids = [...count.keys()].filter((t) => !filter || name(t).toLowerCase().includes(filter.toLowerCase()) || (g.types.modules[t] ?? '').toLowerCase().includes(filter.toLowerCase()));
            const num = (t: number): number =>
              key === 'count' || key === 'scaledCount' ? count.get(t)! : key === 'retainedSize' ? a.typeRetained[t] : shallow.get(t)!;
            const sign = dir === 'asc' ? 1 : -1;
            if (key === 'type') ids.sort((x, y) => sign * byName(x, y));
            else if (key === 'module') ids = ids.sort((x, y) => sign * (x - y)); // one module: rank = index order
            else ids.sort((x, y) => sign * (num(x) - num(y)) || byName(x, y));
            const start = Math.floor(rnd() * (ids.length + 2));
            const end = start + Math.floor(rnd() * 12);
            const w = s.typeRows({ sort: { key, dir }, filter, start, end });
            expect(w.total).toBe(ids.length);
            expect(w.rows.map((r) => r.typeIndex), `${key} ${dir} '${filter}' [${start},${end})`).toEqual(ids.slice(start, end));
            for (const r of w.rows) {
              expect([r.count, r.shallowSize, r.retainedSize]).toEqual([count.get(r.typeIndex), shallow.get(r.typeIndex), a.typeRetained[r.typeIndex]]);
            }
          }
        }
      }
      const types = [...count.keys()];
      const t = types[Math.floor(rnd() * types.length)];
      const inst: number[] = [];
      for (let n = 0; n < g.nodeCount; n++) if (g.nodeType[n] === t && !(g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED))) inst.push(n);
      for (const key of OBJECT_KEYS) {
        for (const dir of ['asc', 'desc'] as SortDir[]) {
          const col = (n: number) => (key === 'size' ? g.selfSize[n] : key === 'retainedSize' ? a.retainedSize[n] : key === 'generation' ? g.generation[n] : Number(g.address[n]));
          const sign = dir === 'asc' ? 1 : -1;
          const want = [...inst].sort((x, y) => sign * (col(x) - col(y)) || x - y);
          const w = s.objectRows({ typeIndex: t, sort: { key, dir }, start: 0, end: 10_000 });
          expect(w.rows.map((r) => r.node), `objects ${key} ${dir}`).toEqual(want);
        }
      }
    });
  }
});
