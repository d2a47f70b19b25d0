import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { dominatorChildren } from '../../../../shared/analysis/dominator-tree.js';
import { computePerfViewInclusive } from '../../../../shared/analysis/perfview-inclusive.js';
import { readGcdump } from '../../../../shared/formats/gcdump/gcdump-reader.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { naiveReachable } from '../../../helpers/naive-dominators.js';

/**
 * Golden runs on the real .gcdump fixtures. Reachable/unreachable figures were recorded from
 * this implementation and are cross-checked by an independent BFS below; the structural
 * invariants hold for any correct dominator computation.
 *
 * perfview_test2 (a PerfView heap dump of a WPF app) contains mostly objects that no root
 * reaches; the independent BFS agrees, so that is the data as read, not the dominator code.
 */
const GOLDEN: Record<string, { reachableCount: number; reachableSize: number; unreachableCount: number; unreachableSize: number }> = {
  'mono_android_20231108_150515_31024.gcdump': { reachableCount: 27452, reachableSize: 1771192, unreachableCount: 118, unreachableSize: 9496 },
  'mono_android_20231108_150644_31024.gcdump': { reachableCount: 27787, reachableSize: 1804448, unreachableCount: 127, unreachableSize: 10032 },
  'monovm_ios_sample.gcdump': { reachableCount: 24057, reachableSize: 1308584, unreachableCount: 5, unreachableSize: 544 },
  'perfview_test1.gcdump': { reachableCount: 6482, reachableSize: 1009270, unreachableCount: 0, unreachableSize: 0 },
  'perfview_test2.gcdump': { reachableCount: 16911, reachableSize: 689116, unreachableCount: 123480, unreachableSize: 3458012 },
};

const loaded = new Map<string, Promise<HeapGraph>>();
function load(path: string): Promise<HeapGraph> {
  let g = loaded.get(path);
  if (!g) {
    g = readGcdump(new MemoryByteSource(readFileSync(path), path), {});
    loaded.set(path, g);
  }
  return g;
}

for (const [file, expected] of Object.entries(GOLDEN)) {
  const path = fixturePath(`gcdump/${file}`);
  describe.skipIf(!path)(`analyzeGraph on ${file}${path ? '' : ` (${NO_FIXTURES})`}`, () => {
    it('reachable and unreachable totals match the recorded values and a plain BFS', async () => {
      const g = await load(path!);
      const a = analyzeGraph(g);
      expect({ reachableCount: a.reachableCount, reachableSize: a.reachableSize, unreachableCount: a.unreachableCount, unreachableSize: a.unreachableSize }).toEqual(expected);
      const seen = naiveReachable(g);
      let count = 0;
      let size = 0;
      for (let v = 0; v < g.nodeCount; v++) {
        if (!seen[v]) continue;
        count++;
        size += g.selfSize[v];
      }
      expect([count, size]).toEqual([expected.reachableCount, expected.reachableSize]);
      expect(a.reachableSize + a.unreachableSize).toBe(g.totalSize);
    });

    it('retained sizes and the dominator tree are consistent', async () => {
      const g = await load(path!);
      const a = analyzeGraph(g);
      const root = g.rootIndex;
      expect(a.retainedSize[root]).toBe(a.reachableSize);
      let children = 0;
      for (const c of dominatorChildren(a, root, 0, g.nodeCount)) children += a.retainedSize[c];
      expect(children).toBe(a.reachableSize - g.selfSize[root]);
      for (let t = 0; t < g.types.count; t++) {
        if (a.typeRetained[t] > a.reachableSize) throw new Error(`type ${g.types.names[t]} retains ${a.typeRetained[t]} > ${a.reachableSize}`);
        if (a.typeRetained[t] < a.typeReachableShallow[t]) throw new Error(`type ${g.types.names[t]} retains less than its own size`);
      }
      // every reachable node's idom chain ends at the root (memoised: each node walked once)
      const reachesRoot = new Uint8Array(g.nodeCount);
      reachesRoot[root] = 1;
      const chain: number[] = [];
      for (let v = 0; v < g.nodeCount; v++) {
        if (!a.reachable[v] || reachesRoot[v]) continue;
        let x = v;
        while (!reachesRoot[x]) {
          chain.push(x);
          x = a.idom[x];
          if (x === NONE || chain.length > g.nodeCount) throw new Error(`idom chain from ${v} does not reach the root`);
        }
        for (const c of chain) reachesRoot[c] = 1;
        chain.length = 0;
      }
      let mismatches = 0;
      for (let v = 0; v < g.nodeCount; v++) if (reachesRoot[v] !== a.reachable[v]) mismatches++;
      expect(mismatches).toBe(0);
    });

    it('the PerfView-style spanning tree covers the whole file', async () => {
      const g = await load(path!);
      const p = computePerfViewInclusive(g);
      expect(p.inclusiveSize[g.rootIndex] + p.unreachableInclusive).toBe(g.totalSize);
      expect(p.orphanRootCount).toBeLessThanOrEqual(expected.unreachableCount);
      expect(p.orphanRootCount > 0).toBe(expected.unreachableCount > 0);
    });
  });
}
