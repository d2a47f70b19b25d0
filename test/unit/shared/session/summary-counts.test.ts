import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyzeGraph, type HeapAnalysis } from '../../../../shared/analysis/analyze.js';
import '../../../../shared/formats/all-readers.js';
import { readSnapshot } from '../../../../shared/formats/read-snapshot.js';
import { GEN_FROZEN, NODE_PSEUDO, NODE_UNDEFINED, type HeapGraph } from '../../../../shared/graph/heap-graph.js';
import type { FileEntry, FileToken, SessionId, SnapshotSummary } from '../../../../shared/ipc/contract.js';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

/**
 * Every "objects" figure of the summary counts heap objects only: the analysis' reachable count is
 * of nodes (root, root categories and undefined slots included), which the Summary tab used to
 * print as "objects" (issue 13, item 4).
 */
const file: FileEntry = { token: 'tok' as FileToken, name: 'x.gcdump', displayPath: '/x.gcdump', size: 1, modifiedMs: 0, source: 'path', formatHint: 'gcdump', exists: true };

function analyzedSummary(g: HeapGraph): { a: HeapAnalysis; sum: SnapshotSummary } {
  const s = new SnapshotSession(g, { sessionId: 's' as SessionId, file, parseMs: 1 });
  s.runAnalysis();
  // the same analysis, for its node-level figures
  return { a: analyzeGraph(g), sum: s.summary() };
}

const counts = (sum: SnapshotSummary) => ({
  objects: sum.objects.count,
  reachable: sum.reachable!.count,
  unreachable: sum.unreachable!.count,
  frozen: sum.unreachableFrozen!.count,
  pseudo: sum.pseudoNodeCount,
  undefined: sum.undefinedNodeCount,
});

describe('summary object counts (tiny graph)', () => {
  it('counts reachable objects, not reachable nodes; pseudo and undefined nodes are reported apart', () => {
    // root → [static vars] → A → B, A → Ghost (never described: undefined); [local vars] → C; G is garbage
    const t = tinyGraph((b) => {
      b.root('[static vars]').ref('A');
      b.root('[local vars]').ref('C');
      b.node('A', 16, 'Holder').ref('B', 'Ghost');
      b.node('B', 8, 'Leaf');
      b.node('C', 24, 'Holder');
      b.node('G', 100, 'Garbage');
    });
    const { a, sum } = analyzedSummary(t.graph);
    // 8 nodes: root, 2 categories, Ghost, A, B, C, G; 7 reachable nodes, of which 3 are objects
    expect(a.reachableCount).toBe(7);
    expect(counts(sum)).toEqual({ objects: 4, reachable: 3, unreachable: 1, frozen: 0, pseudo: 3, undefined: 1 });
    expect(sum.reachable).toEqual({ count: 3, size: 48 });
    expect(sum.unreachable).toEqual({ count: 1, size: 100 });
    expect(sum.unreachableFrozen).toEqual({ count: 0, size: 0 });
  });

  it('before the analysis: no reachability figures, the non-objects already known', () => {
    const t = tinyGraph((b) => {
      b.root('[static vars]').ref('A');
      b.node('A', 16);
    });
    const sum = new SnapshotSession(t.graph, { sessionId: 's' as SessionId, file, parseMs: 1 }).summary();
    expect([sum.reachable, sum.unreachable, sum.unreachableFrozen, sum.pseudoNodeCount, sum.undefinedNodeCount, sum.objects.count]).toEqual([null, null, null, 2, 0, 1]);
  });
});

const PERFVIEW1 = fixturePath('gcdump/perfview_test1.gcdump');
const ANDROID = fixturePath('gcdump/mono_android_20231108_150644_31024.gcdump');
const TEST2 = fixturePath('gcdump/perfview_test2.gcdump');
const load = async (p: string) => readSnapshot(new MemoryByteSource(new Uint8Array(readFileSync(p))));

describe.skipIf(!PERFVIEW1 || !ANDROID || !TEST2)(`summary object counts on real dumps${PERFVIEW1 ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('perfview_test1: 6,481 objects, all reachable (6,482 reachable nodes: the root is not an object)', async () => {
    const { a, sum } = analyzedSummary(await load(PERFVIEW1!));
    expect(a.reachableCount).toBe(6482);
    expect(counts(sum)).toEqual({ objects: 6481, reachable: 6481, unreachable: 0, frozen: 0, pseudo: 1, undefined: 0 });
    expect(sum.reachable!.size).toBe(1_009_270);
  });

  it('mono_android_20231108_150644: 25,934 of 26,061 objects reachable, not the 27,787 reachable nodes', async () => {
    const { a, sum } = analyzedSummary(await load(ANDROID!));
    expect(a.reachableCount).toBe(27_787);
    expect(counts(sum)).toEqual({ objects: 26_061, reachable: 25_934, unreachable: 127, frozen: 0, pseudo: 1853, undefined: 0 });
    expect([sum.reachable!.size, sum.unreachable!.size]).toEqual([1_804_448, 10_032]);
  });

  it('perfview_test2: undefined nodes are not objects either', async () => {
    const { sum } = analyzedSummary(await load(TEST2!));
    expect(counts(sum)).toEqual({ objects: 138_218, reachable: 14_745, unreachable: 123_473, frozen: 0, pseudo: 2155, undefined: 18 });
    expect([sum.reachable!.size, sum.unreachable!.size]).toEqual([689_116, 3_458_012]);
  });
});

describe('summary object counts on the bundled sample (a real .NET heap, with frozen objects)', () => {
  it('match a per-node tally: reachable + unreachable + frozen without a root = objects', async () => {
    const g = await load(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'electron', 'resources', 'sample.gcdump'));
    const { a, sum } = analyzedSummary(g);
    // the oracle: one plain pass over the node columns
    const want = { objects: 0, reachable: 0, unreachable: 0, frozen: 0, pseudo: 0, undefined: 0 };
    let reachableNodes = 0;
    for (let n = 0; n < g.nodeCount; n++) {
      if (a.reachable[n]) reachableNodes++;
      if (g.nodeFlags[n] & NODE_UNDEFINED) want.undefined++;
      else if (g.nodeFlags[n] & NODE_PSEUDO) want.pseudo++;
      else {
        want.objects++;
        if (a.reachable[n]) want.reachable++;
        else if (g.generation[n] === GEN_FROZEN) want.frozen++;
        else want.unreachable++;
      }
    }
    expect(counts(sum)).toEqual(want);
    expect(sum.reachable!.count + sum.unreachable!.count + sum.unreachableFrozen!.count).toBe(sum.objects.count);
    expect(sum.reachable!.count).toBeLessThan(reachableNodes); // the sample has root categories
    expect(want.frozen).toBeGreaterThan(0); // .NET 8+: string literals on the frozen heap that no root reaches
  });
});
