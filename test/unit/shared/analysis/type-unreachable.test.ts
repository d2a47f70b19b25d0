import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { computeTypeStats } from '../../../../shared/analysis/type-stats.js';
import { FormatError } from '../../../../shared/errors.js';
import '../../../../shared/formats/all-readers.js';
import { readSnapshot } from '../../../../shared/formats/read-snapshot.js';
import { GEN_FROZEN, NODE_PSEUDO, NODE_UNDEFINED, type HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { FIXTURES_DIR, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { naiveReachable } from '../../../helpers/naive-dominators.js';
import { mulberry32, randomGraph } from '../../../helpers/random-graph.js';

/**
 * Per-type unreachable objects (issue 13, item 5): a type's retained size counts reachable
 * instances only, so it may be below the type's shallow size, but never by more than the
 * unreachable bytes the report and the types grid now show next to it.
 */
const isObject = (g: HeapGraph, n: number) => (g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0;

describe('per-type unreachable objects (tiny graph)', () => {
  // root → [static vars] → A(Foo 16) → Ghost (undefined); [weak] ⇢ C(Bar 24); B(Foo 8) → B2(Foo 8) garbage;
  // L(Lit 40) and M(Lit 12) no root reaches, L is on a frozen segment.
  const t = tinyGraph((b) => {
    b.root('[static vars]').ref('A');
    b.root('[weak handles]', { weak: true }).ref('C');
    b.node('A', 16, 'Foo').ref('Ghost');
    b.node('B', 8, 'Foo').ref('B2');
    b.node('B2', 8, 'Foo');
    b.node('C', 24, 'Bar');
    b.node('L', 40, 'Lit');
    b.node('M', 12, 'Lit');
  });
  const generation = new Uint8Array(t.graph.nodeCount).fill(2);
  generation[t.id('L')] = GEN_FROZEN;
  const g: HeapGraph = { ...t.graph, generation, hasGenerationData: true };
  const type = (name: string) => g.types.names.indexOf(name);

  it('counts unreachable heap objects and bytes per type, frozen ones included', () => {
    const a = analyzeGraph(g);
    const row = (name: string) => [a.typeUnreachableCount[type(name)], a.typeUnreachableShallow[type(name)], a.typeRetained[type(name)]];
    expect(row('Foo')).toEqual([2, 16, 16]);
    expect(row('Bar')).toEqual([1, 24, 0]);
    expect(row('Lit')).toEqual([2, 52, 0]);
    // the undefined Ghost is reachable but no object; the unreachable [weak handles]-only C is an object
    expect([a.reachableCount, a.reachableObjectCount, a.unreachableObjectCount, a.unreachableObjectSize]).toEqual([5, 1, 5, 92]);
    expect([a.unreachableFrozenCount, a.unreachableFrozenSize]).toEqual([1, 40]);
    // the node-level figures are unchanged: every unreachable node, pseudo or not
    expect([a.unreachableCount, a.unreachableSize]).toEqual([5, 92]);
  });

  it('retained ≥ shallow − unreachable bytes for every type', () => {
    const a = analyzeGraph(g);
    const s = computeTypeStats(g);
    for (let ti = 0; ti < g.types.count; ti++) expect(a.typeRetained[ti]).toBeGreaterThanOrEqual(s.shallowSize[ti] - a.typeUnreachableShallow[ti]);
  });
});

describe('per-type unreachable objects vs a naive tally (seeded random graphs)', () => {
  it('matches on 1,500 graphs with weak categories and dead cliques', () => {
    const rnd = mulberry32(1313);
    let unreachableSeen = 0;
    for (let c = 0; c < 1500; c++) {
      const seed = Math.floor(rnd() * 2 ** 31);
      const g0 = randomGraph(seed, { nodes: 1 + Math.floor(rnd() * 80), types: 1 + Math.floor(rnd() * 4), avgDegree: 0.5 + rnd() * 2.5 });
      // some objects frozen, at random
      const generation = Uint8Array.from(g0.generation, () => (rnd() < 0.2 ? GEN_FROZEN : 2));
      const g: HeapGraph = { ...g0, generation, hasGenerationData: true };
      const a = analyzeGraph(g);
      const seen = naiveReachable(g); // a plain BFS over counted references
      const s = computeTypeStats(g);
      const count = new Float64Array(g.types.count);
      const bytes = new Float64Array(g.types.count);
      let reachableObjects = 0;
      let frozen = 0;
      for (let n = 0; n < g.nodeCount; n++) {
        if (!isObject(g, n)) continue;
        if (seen[n]) {
          reachableObjects++;
          continue;
        }
        count[g.nodeType[n]]++;
        bytes[g.nodeType[n]] += g.selfSize[n];
        if (g.generation[n] === GEN_FROZEN) frozen++;
      }
      const where = `seed ${seed}`;
      expect(Array.from(a.typeUnreachableCount), where).toEqual(Array.from(count));
      expect(Array.from(a.typeUnreachableShallow), where).toEqual(Array.from(bytes));
      expect([a.reachableObjectCount, a.unreachableObjectCount, a.unreachableFrozenCount], where).toEqual([reachableObjects, s.objectCount - reachableObjects, frozen]);
      for (let t = 0; t < g.types.count; t++) {
        if (a.typeRetained[t] < s.shallowSize[t] - a.typeUnreachableShallow[t]) throw new Error(`${where}: type ${t} retains less than its reachable shallow size`);
      }
      if (a.unreachableObjectCount > 0) unreachableSeen++;
    }
    expect(unreachableSeen).toBeGreaterThan(150);
  });
});

/** Every snapshot we have: the .gcdump and .nettrace fixtures (those with a heap dump) and the bundled sample. */
function snapshotFiles(): string[] {
  const files = [join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'electron', 'resources', 'sample.gcdump')];
  if (FIXTURES_DIR) {
    for (const dir of ['gcdump', 'nettrace']) {
      for (const f of readdirSync(join(FIXTURES_DIR, dir)).sort()) if (/\.(gcdump|nettrace|netperf)$/.test(f)) files.push(join(FIXTURES_DIR, dir, f));
    }
  }
  return files;
}

describe(`retained ≥ reachable shallow on every snapshot${FIXTURES_DIR ? '' : ` (${NO_FIXTURES}: the bundled sample only)`}`, () => {
  for (const path of snapshotFiles()) {
    const name = path.split(/[\\/]/).pop()!;
    it(name, async () => {
      let g: HeapGraph;
      try {
        g = await readSnapshot(new MemoryByteSource(new Uint8Array(readFileSync(path)), name));
      } catch (e) {
        // a GC-events-only trace: nothing to check (its reader says so with this code)
        if (e instanceof FormatError && e.code === 'format/no-heap-dump') return;
        throw e;
      }
      const a = analyzeGraph(g);
      const s = computeTypeStats(g);
      let unreachable = 0;
      for (let t = 0; t < g.types.count; t++) {
        const reachableShallow = s.shallowSize[t] - a.typeUnreachableShallow[t];
        expect(reachableShallow, g.types.names[t]).toBe(a.typeReachableShallow[t]);
        if (a.typeRetained[t] < reachableShallow) throw new Error(`${name}: ${g.types.names[t]} retains ${a.typeRetained[t]} < reachable shallow ${reachableShallow}`);
        if (a.typeUnreachableCount[t] > s.count[t]) throw new Error(`${name}: ${g.types.names[t]} has more unreachable instances than instances`);
        unreachable += a.typeUnreachableCount[t];
      }
      expect(unreachable).toBe(a.unreachableObjectCount);
      expect(a.reachableObjectCount + a.unreachableObjectCount).toBe(s.objectCount);
    });
  }

  const android = FIXTURES_DIR ? join(FIXTURES_DIR, 'gcdump', 'mono_android_20231108_150644_31024.gcdump') : null;
  it.skipIf(!android)('mono_android_20231108_150644: StartHelper, retained 0 B beside 256 B shallow, is 4 unreachable instances of 256 B', async () => {
    const g = await readSnapshot(new MemoryByteSource(new Uint8Array(readFileSync(android!))));
    const a = analyzeGraph(g);
    const s = computeTypeStats(g);
    const t = g.types.names.indexOf('System.Threading.Thread.StartHelper');
    expect([s.count[t], s.shallowSize[t], a.typeRetained[t], a.typeUnreachableCount[t], a.typeUnreachableShallow[t]]).toEqual([4, 256, 0, 4, 256]);
  });
});
