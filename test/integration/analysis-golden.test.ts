import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../shared/analysis/analyze.js';
import { diffSummaries } from '../../shared/analysis/diff.js';
import { generationBreakdown, NO_GENERATION_DATA_MESSAGE } from '../../shared/analysis/generation-breakdown.js';
import { describePath, findRetentionPaths, shortestPathTree } from '../../shared/analysis/paths-to-roots.js';
import { buildRetainers } from '../../shared/analysis/retainers.js';
import { growingTypes } from '../../shared/analysis/trend.js';
import { typeMaskByName, typePathTree } from '../../shared/analysis/type-path-tree.js';
import { summarizeTypes } from '../../shared/analysis/type-summary.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { NODE_UNDEFINED, NONE } from '../../shared/graph/heap-graph.js';
import { loadSnapshot } from '../../electron/cli/load.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';
import { mulberry32 } from '../helpers/random-graph.js';

// Golden runs of the issue-3 analyses on the real dumps; oracle numbers from
// /work/shared/spec/expected-values.md §1.
const test2 = fixturePath('gcdump/perfview_test2.gcdump');
const android1 = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
const android2 = fixturePath('gcdump/mono_android_20231108_150644_31024.gcdump');
const ios = fixturePath('gcdump/monovm_ios_sample.gcdump');
const test1 = fixturePath('gcdump/perfview_test1.gcdump');
const skip = (...p: (string | null)[]) => (p.every(Boolean) ? '' : ` (${NO_FIXTURES})`);
const quiet = { write() {} };
const load = async (path: string) => (await loadSnapshot(path, quiet)).graph;

/** Walk every path's edges in the forward graph: a valid chain from the root to the target. */
function expectValidPath(g: HeapGraph, path: Uint32Array, target: number): void {
  expect(path[0]).toBe(g.rootIndex);
  expect(path[path.length - 1]).toBe(target);
  for (let i = 1; i < path.length; i++) {
    let found = false;
    for (let e = g.firstEdge[path[i - 1]]; e < g.firstEdge[path[i - 1] + 1] && !found; e++) found = g.edgeTarget[e] === path[i];
    expect(found).toBe(true);
  }
}

describe.skipIf(!test2)(`generations of perfview_test2.gcdump (2 segments)${skip(test2)}`, () => {
  it('matches a per-object classification computed here from the segment table of expected-values §1.2', async () => {
    const g = await load(test2!);
    // [Start, End, Gen0End, Gen1End, Gen2End, Gen3End] (segment type version 0: no Gen4End)
    const segments = [
      [46534656, 50613288, 50613288, 49048604, 47966148, 46534656],
      [63311872, 63382536, 63382536, 63382536, 63382536, 63382536],
    ];
    // the 7th column, frozen (non-GC heap), stays empty: the 8 objects outside the segments are
    // PerfView's "[CCW for …]" nodes with native addresses, which are unknown
    const count = [0, 0, 0, 0, 0, 0, 0];
    const bytes = [0, 0, 0, 0, 0, 0, 0];
    let objects = 0;
    for (let n = 0; n < g.nodeCount; n++) {
      const a = Number(g.address[n]);
      if (a === 0 || g.nodeFlags[n] & NODE_UNDEFINED) continue; // pseudo-nodes and undefined slots
      objects++;
      const s = segments.find(([start, end]) => start <= a && a < end);
      const gen = !s ? 5 : a < s[5] ? 3 : a < s[4] ? 2 : a < s[3] ? 1 : a < s[2] ? 0 : 5;
      count[gen]++;
      bytes[gen] += g.selfSize[n];
    }
    const r = generationBreakdown(g);
    expect(r.hasGenerationData).toBe(true);
    expect(r.generations!.map((x) => x.count)).toEqual(count);
    expect(r.generations!.map((x) => x.bytes)).toEqual(bytes);
    // the same numbers, spelled out, and consistent with the file's TotalSize (4,147,128)
    expect(count).toEqual([55_580, 38_599, 44_014, 17, 0, 8, 0]);
    expect(bytes).toEqual([1_557_084, 1_082_456, 1_435_348, 70_640, 0, 1_600, 0]);
    expect(bytes.reduce((x, y) => x + y, 0)).toBe(4_147_128);
    expect([r.objectCount, r.objectBytes]).toEqual([objects, 4_147_128]);
    expect(r.largeBySize).toEqual({ count: 0, bytes: 0, threshold: 85_000 });
  });
});

describe.skipIf(!android1 || !ios)(`generations of dotnet-gcdump files${skip(android1, ios)}`, () => {
  it('says there is no generation data instead of printing zeros', async () => {
    for (const path of [android1!, ios!]) {
      const r = generationBreakdown(await load(path));
      expect([r.hasGenerationData, r.message, r.generations]).toEqual([false, NO_GENERATION_DATA_MESSAGE, null]);
    }
  });
});

describe.skipIf(!test1)(`generations of a PerfView file without segments${skip(test1)}`, () => {
  it('does not blame dotnet-gcdump: PerfView does not name itself in the file (issue 14 item 8)', async () => {
    const g = await load(test1!);
    expect([g.metadata.creationTool, g.metadata.segments]).toEqual([null, null]);
    const r = generationBreakdown(g);
    expect([r.hasGenerationData, r.message]).toEqual([false, 'this file carries no generation data (it lists no GC segments; the file does not name the tool that wrote it)']);
  });
});

describe.skipIf(!android1 || !test2)(`paths to roots on real dumps${skip(android1, test2)}`, () => {
  it('every path is a chain of references from the root to the object, shortest first and distinct', async () => {
    for (const path of [android1!, test2!]) {
      const g = await load(path);
      const spt = shortestPathTree(g);
      const ret = buildRetainers(g);
      const rnd = mulberry32(7);
      let checked = 0;
      while (checked < 60) {
        const target = Math.floor(rnd() * g.nodeCount);
        if (spt.dist[target] === NONE) continue;
        const r = findRetentionPaths(g, target, spt, ret, { maxPaths: 4 });
        expect(r.paths[0].length - 1).toBe(spt.dist[target]);
        const keys = new Set<string>();
        let prev = 0;
        for (const p of r.paths) {
          expectValidPath(g, p, target);
          expect(p.length).toBeGreaterThanOrEqual(prev);
          prev = p.length;
          keys.add(p.join(','));
        }
        expect(keys.size).toBe(r.paths.length);
        expect(describePath(g, r.paths[0]).steps[0].pseudo).toBe(true);
        checked++;
      }
    }
  });

  it('merges the 4,174 System.String paths of the Android dump; branches add up', async () => {
    const g = await load(android1!);
    const tree = typePathTree(g, shortestPathTree(g), typeMaskByName(g, 'System.String'), { maxBreadth: 1_000_000 });
    expect(tree.instances).toBe(4_174);
    expect(tree.reachable + tree.unreachable).toBe(4_174);
    expect(tree.roots.map((b) => [b.typeName, b.count])).toEqual([['System.String', tree.reachable]]);
    let endsAtRoot = 0;
    const stack = [...tree.roots];
    while (stack.length) {
      const b = stack.pop()!;
      expect(b.children.reduce((s, c) => s + c.count, 0) + b.endsHere + b.cutOff).toBe(b.count);
      if (b.endsHere) {
        expect(b.typeName).toBe('[.NET Roots]');
        endsAtRoot += b.endsHere;
      }
      stack.push(...b.children);
    }
    const cut = (function sumCut(bs: typeof tree.roots): number {
      return bs.reduce((s, b) => s + b.cutOff + sumCut(b.children), 0);
    })(tree.roots);
    expect(endsAtRoot + cut).toBe(tree.reachable);
  });
});

describe.skipIf(!android1 || !android2)(`diff and trend of the two Android dumps${skip(android1, android2)}`, () => {
  it('gives the exact System.String deltas of expected-values §1.3', async () => {
    const summarize = async (path: string, label: string) => {
      const g = await load(path);
      return summarizeTypes(g, analyzeGraph(g), label);
    };
    const a = await summarize(android1!, 'a');
    const b = await summarize(android2!, 'b');
    const d = diffSummaries(a, b);
    const s = d.rows.find((r) => r.name === 'System.String')!;
    expect([s.status, s.baseCount, s.newCount, s.countDelta, s.baseShallow, s.newShallow, s.shallowDelta]).toEqual([
      'both', 4_174, 4_230, 56, 285_248, 292_088, 6_840,
    ]);
    // TotalSize of each file (pseudo-nodes have size 0, so Σ shallow of objects is the same)
    expect([d.total.baseShallow, d.total.newShallow, d.total.shallowDelta]).toEqual([1_780_688, 1_814_480, 33_792]);
    const t = growingTypes([a, b]);
    expect(t.rows.find((r) => r.name === 'System.String')!.counts).toEqual([4_174, 4_230]);
    // a type cannot grow strictly from a snapshot to itself
    expect(growingTypes([a, b, a]).rows).toEqual([]);
  });
});
