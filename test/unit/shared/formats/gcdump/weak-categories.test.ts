import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../../shared/analysis/analyze.js';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import { isWeakCategoryName } from '../../../../../shared/formats/gcdump/weak-categories.js';
import { writeGcdump } from '../../../../../shared/formats/gcdump/gcdump-writer.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_WEAK_EDGES } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { tinyGraph } from '../../../../helpers/graph-builder.js';
import { concat } from './gcdump-test-utils.js';

/**
 * A weak-handle category in a .gcdump (ours: "[weak Handles]"; a CF heap log converted:
 * "[weak GC handles]"; other producers' spellings) keeps nothing alive, exactly as in the trace
 * the file was made from (issue 13 item 1).
 */
async function roundTrip(g: HeapGraph): Promise<HeapGraph> {
  return readGcdump(new MemoryByteSource(concat(writeGcdump(g)), 'weak.gcdump'));
}

describe('weak-handle categories in a .gcdump', () => {
  // [static vars] → Holder (100) → Cache (40); [weak Handles] → Cache, Orphan (30) → Leaf (8).
  const t = tinyGraph((b) => {
    b.root('[static vars]').ref('Holder');
    b.root('[weak Handles]', { weak: true }).ref('Cache', 'Orphan');
    b.node('Holder', 100).ref('Cache');
    b.node('Cache', 40);
    b.node('Orphan', 30).ref('Leaf');
    b.node('Leaf', 8);
  });

  it('reads the category back as weak: same reachability and retained sizes as the graph written', async () => {
    const g = await roundTrip(t.graph);
    const weak = g.nodeType.findIndex((ty, n) => g.types.names[ty] === '[weak Handles]' && n >= 0);
    expect(weak).toBeGreaterThan(0);
    expect(g.nodeFlags[weak]).toBe(NODE_PSEUDO | NODE_WEAK_EDGES);
    const a = analyzeDominance(g);
    const byName = (name: string) => g.nodeType.findIndex((ty) => g.types.names[ty] === name);
    expect(a.retainedSize[byName('Holder')]).toBe(140);
    expect(a.retainedSize[g.rootIndex]).toBe(140);
    expect(a.reachable[byName('Orphan')]).toBe(0);
    expect(a.reachable[byName('Leaf')]).toBe(0);
    expect(a.unreachableSize).toBe(38);
    const before = analyzeDominance(t.graph);
    expect(Array.from(a.retainedSize)).toEqual(Array.from(before.retainedSize));
  });

  it('recognises the weak spellings of every producer, and only pseudo categories', () => {
    for (const name of ['[weak Handles]', '[weak handles]', '[weak GC handles]', '[WeakShort Handles]', '[weak long handles]', '[Weak Handle]']) expect(isWeakCategoryName(name), name).toBe(true);
    for (const name of ['[Dependent Handles]', '[strong Handles]', '[static var Foo.weakHandles]', '[weak]', 'WeakHandles', '[other roots]', 'System.WeakReference']) expect(isWeakCategoryName(name), name).toBe(false);
  });

  it('does not flag an object whose type merely looks like a category (it has an address)', async () => {
    const g = await roundTrip(t.graph);
    for (let n = 0; n < g.nodeCount; n++) if (g.address[n] !== 0n) expect(g.nodeFlags[n] & NODE_WEAK_EDGES).toBe(0);
  });
});
