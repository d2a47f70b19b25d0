import { beforeAll, describe, expect, it } from 'vitest';
import { collectHeapSnapshot } from '../../electron/diagnostics/heap-collector.js';
import { analyzeDominance } from '../../shared/analysis/analyze.js';
import { dominatorGrowth } from '../../shared/analysis/dominator-growth.js';
import { retainerSignatures, type RetainerSnapshot } from '../../shared/analysis/dominator-signatures.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp } from '../helpers/dotnet-app.js';

/**
 * Growth at dominator level on real CoreCLR heaps (issue 16): LeakyApp run three times with
 * `--objects N` for N = 2,000, 4,000, 6,000 keeps N plain objects in the static List<object>
 * AppEvents.Bulk — a series standing for one process whose list grows. Everything else in the
 * program is the same in the three runs, so the list is the biggest, steadiest grower.
 *
 * Its retained size is checked against a count that shares no code with the dominator analysis:
 * the List's and its array's own sizes plus every System.Object whose only reference comes from
 * that array (the runtime may keep one of them referenced from elsewhere too, e.g. the last one
 * added from Main's frame: such an object is not the list's alone).
 */
const STEPS = [2000, 4000, 6000];

/** List + its array + the objects only that array references: counted from the references. */
function ownedByList(g: HeapGraph, list: number): { arrayLength: number; bytes: number } {
  let arr = -1;
  for (let e = g.firstEdge[list]; e < g.firstEdge[list + 1]; e++) if (g.types.names[g.nodeType[g.edgeTarget[e]]].startsWith('System.Object[]')) arr = g.edgeTarget[e];
  const inDegree = new Uint32Array(g.nodeCount);
  for (let e = 0; e < g.edgeCount; e++) inDegree[g.edgeTarget[e]]++;
  let bytes = g.selfSize[list] + g.selfSize[arr];
  let arrayLength = 0;
  for (let e = g.firstEdge[arr]; e < g.firstEdge[arr + 1]; e++) {
    const o = g.edgeTarget[e];
    arrayLength++;
    if (g.types.names[g.nodeType[o]] === 'System.Object' && inDegree[o] === 1) bytes += g.selfSize[o];
  }
  return { arrayLength, bytes };
}

describe.skipIf(!HAS_DOTNET)(`trend --dominators on LeakyApp snapshots (${HAS_DOTNET ? 'dotnet found' : DOTNET_MISSING})`, () => {
  const snaps: RetainerSnapshot[] = [];
  const graphs: HeapGraph[] = [];
  let dll: string;
  beforeAll(() => {
    dll = buildDotnetApp('LeakyApp');
  }, 300_000);

  it('finds the growing static list, steady at every step, with its exact retained sizes', async () => {
    for (const n of STEPS) {
      const app = await startDotnetApp(dll, ['--objects', String(n)]);
      try {
        const r = await collectHeapSnapshot({ pid: app.pid, timeoutSec: 60 });
        const a = analyzeDominance(r.graph);
        snaps.push(retainerSignatures(r.graph, a, `objects-${n}`, { minBytes: 16_384 }));
        graphs.push(r.graph);
      } finally {
        await app.stop();
      }
    }
    const t = dominatorGrowth(snaps);
    const list = t.rows.find((r) => r.type.startsWith('System.Collections.Generic.List<System.Object>'))!;
    expect(list, t.rows.map((r) => r.signature).join('\n')).toBeDefined();
    const owned = snaps.map((snap, i) => ownedByList(graphs[i], snap.entries.find((e) => e.signature === list.signature)!.node));
    expect(owned.map((o) => o.arrayLength)).toEqual(STEPS); // the references of the array's used slots
    expect(list.retained).toEqual(owned.map((o) => o.bytes));
    // the List (32 bytes) and its array (24 + 8 × capacity 2,048 / 4,096 / 8,192) hold N 24-byte objects, give or take one
    list.retained.forEach((v, i) => expect(Math.abs(v - (32 + 24 + 8 * [2048, 4096, 8192][i] + 24 * STEPS[i]))).toBeLessThanOrEqual(24));
    expect([list.growingSteps, list.steadiness, list.steadinessRank <= 2]).toEqual([2, 1, true]);
    expect(list.growthRank).toBeLessThanOrEqual(2);
  }, 300_000);
});
