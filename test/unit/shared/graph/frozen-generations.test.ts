import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { GEN_COLUMN_FROZEN, GEN_COLUMN_UNKNOWN, GEN_COLUMNS, generationBreakdown } from '../../../../shared/analysis/generation-breakdown.js';
import { shortestPathTree } from '../../../../shared/analysis/paths-to-roots.js';
import { typeMaskByName, typePathTree } from '../../../../shared/analysis/type-path-tree.js';
import '../../../../shared/formats/all-readers.js';
import { readSnapshot } from '../../../../shared/formats/read-snapshot.js';
import { computeGenerations } from '../../../../shared/graph/generations.js';
import { FROZEN_GENERATION_NAME, GEN_FROZEN, GEN_UNKNOWN, NODE_PSEUDO, NODE_UNDEFINED, type HeapGraph } from '../../../../shared/graph/heap-graph.js';
import type { HeapSegment } from '../../../../shared/graph/metadata.js';
import { generationName } from '../../../../shared/session/object-view.js';
import { PathsView } from '../../../../shared/session/paths-view.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

/**
 * Frozen (non-GC heap) objects (issue 13, item 7): the runtime reports a generation range for
 * every GC segment or region but none for its frozen segments, so a heap object outside every
 * range lives on one. They used to show as generation "unknown" and as garbage.
 */

// two GC segments: [0x1000, 0x2000) gen2 then gen0; [0x5000, 0x6000) LOH
const SEGMENTS: HeapSegment[] = [
  { start: 0x1000n, end: 0x2000n, gen4End: 0n, gen3End: 0n, gen2End: 0x1800n, gen1End: 0x1800n, gen0End: 0x1f00n },
  { start: 0x5000n, end: 0x6000n, gen4End: 0n, gen3End: 0x6000n, gen2End: 0n, gen1End: 0n, gen0End: 0n },
];

describe('computeGenerations: frozen (non-GC heap) objects', () => {
  const types = ['[root]', 'System.String', '[CCW for App.Thing]', 'UNDEFINED'];
  // node: [address, type, flags]
  const nodes: [bigint, number, number][] = [
    [0n, 0, NODE_PSEUDO], //        0 the root: unknown
    [0x1100n, 1, 0], //             1 gen2
    [0x1900n, 1, 0], //             2 gen0
    [0x1f80n, 1, 0], //             3 inside a segment, past gen0End: unknown
    [0x5100n, 1, 0], //             4 LOH
    [0x800n, 1, 0], //              5 below every segment: frozen
    [0x3000n, 1, 0], //             6 between the segments: frozen
    [0x7fff_0000_1000n, 1, 0], //   7 far above (a 47-bit address): frozen
    [0x3100n, 2, 0], //             8 a CCW's native address: unknown, not frozen
    [0x3200n, 3, NODE_UNDEFINED], // 9 an undefined slot outside: unknown (no object)
    [0x3300n, 1, NODE_PSEUDO], //  10 a pseudo-node with an address: unknown
  ];
  const address = BigUint64Array.from(nodes.map((n) => n[0]));
  const frozen = { nodeFlags: Uint8Array.from(nodes.map((n) => n[2])), nodeType: Uint32Array.from(nodes.map((n) => n[1])), typeNames: types };
  const F = GEN_FROZEN;
  const U = GEN_UNKNOWN;

  it('marks heap objects outside every GC segment frozen, nothing else', () => {
    expect(Array.from(computeGenerations(address, SEGMENTS, undefined, frozen))).toEqual([U, 2, 0, U, 3, F, F, F, U, U, U]);
  });

  it('without the node columns, or without segments, nothing is frozen', () => {
    expect(Array.from(computeGenerations(address, SEGMENTS))).toEqual([U, 2, 0, U, 3, U, U, U, U, U, U]);
    expect(Array.from(computeGenerations(address, [], undefined, frozen))).toEqual(new Array(11).fill(U));
  });
});

describe('frozen objects in the breakdown, the object view and paths', () => {
  // root → [static vars] → A(App 16) → S1 (frozen string literal 40); L (frozen 24) and G (garbage 8) have no root
  const t = tinyGraph((b) => {
    b.root('[static vars]').ref('A');
    b.node('A', 16, 'App').ref('S1');
    b.node('S1', 40, 'System.String');
    b.node('L', 24, 'System.String');
    b.node('G', 8, 'System.String');
  });
  const generation = new Uint8Array(t.graph.nodeCount).fill(2);
  for (const n of ['S1', 'L']) generation[t.id(n)] = GEN_FROZEN;
  const g: HeapGraph = { ...t.graph, generation, hasGenerationData: true };

  it('the generations breakdown has a "frozen (non-GC heap)" row and column', () => {
    const b = generationBreakdown(g);
    expect(b.generations!.map((r) => [r.name, r.count, r.bytes])).toEqual([
      ['gen0', 0, 0],
      ['gen1', 0, 0],
      ['gen2', 2, 24],
      ['LOH', 0, 0],
      ['POH', 0, 0],
      ['unknown', 0, 0],
      ['frozen (non-GC heap)', 2, 64],
    ]);
    const s = g.types.names.indexOf('System.String');
    expect([b.typeCount![s * GEN_COLUMNS + GEN_COLUMN_FROZEN], b.typeCount![s * GEN_COLUMNS + GEN_COLUMN_UNKNOWN]]).toEqual([2, 0]);
  });

  it('an object row names the generation "frozen (non-GC heap)"', () => {
    expect([generationName(g, t.id('S1')), generationName(g, t.id('G')), generationName(t.graph, t.id('S1'))]).toEqual([FROZEN_GENERATION_NAME, 'gen2', null]);
    expect(FROZEN_GENERATION_NAME).toBe('frozen (non-GC heap)');
  });

  it('paths say which unreachable objects are frozen rather than garbage', () => {
    const tree = typePathTree(g, shortestPathTree(g), typeMaskByName(g, 'System.String'));
    expect([tree.instances, tree.reachable, tree.unreachable, tree.unreachableFrozen]).toEqual([3, 1, 2, 1]);
    const view = new PathsView(g);
    const a = analyzeGraph(g);
    const l = view.paths({ target: { kind: 'object', node: t.id('L') } }, a);
    const gg = view.paths({ target: { kind: 'object', node: t.id('G') } }, a);
    expect([l.kind === 'object' && l.reachable, l.kind === 'object' && l.frozen, gg.kind === 'object' && gg.frozen]).toEqual([false, true, false]);
  });
});

describe('the bundled sample (a .NET 8+ heap captured by heapscope collect)', () => {
  it('has no "unknown" objects: everything outside the GC ranges is a frozen String, RuntimeType or boxed static', async () => {
    const path = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'electron', 'resources', 'sample.gcdump');
    const g = await readSnapshot(new MemoryByteSource(new Uint8Array(readFileSync(path))));
    const b = generationBreakdown(g);
    const row = (name: string) => b.generations!.find((r) => r.name === name)!;
    expect(row('unknown').count).toBe(0);
    expect(row('frozen (non-GC heap)').count).toBeGreaterThan(0);
    // oracle: heap objects in no segment, counted with BigInt compares
    const segs = g.metadata.segments!;
    const names = new Set<string>();
    let outside = 0;
    for (let n = 0; n < g.nodeCount; n++) {
      if (g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
      const a = g.address[n];
      if (segs.some((s) => s.start <= a && a < s.end)) continue;
      outside++;
      names.add(g.types.names[g.nodeType[n]]);
    }
    expect(row('frozen (non-GC heap)').count).toBe(outside);
    expect(names.has('System.String') && names.has('System.RuntimeType')).toBe(true);
  });
});
