import { describe, expect, it } from 'vitest';
import { TAIL } from '../../../../../shared/formats/nettrace/node-cap.js';
import { readNetTraceSnapshot } from '../../../../../shared/formats/nettrace/read-nettrace-snapshot.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { CLR, bulkEdge, bulkNode, bulkRootEdge, bulkType, gcEnd, gcStart } from '../../../../helpers/clr-event-payloads.js';
import type { NodeDef } from '../../../../helpers/clr-event-payloads.js';
import { NetTraceWriter } from '../../../../helpers/nettrace-writer.js';
import { mulberry32 } from '../../../../helpers/prng.js';
import { referenceHeapSnapshot } from './reference-heap-snapshot.js';

/**
 * The node cap on address-ordered walks longer than capInTail's window (TAIL rows), which the
 * small random traces of heap-snapshot-reference.test.ts never reach: the cut in the window's
 * rows when earlier rows exist (only the window's rows are mapped to reference positions), the
 * cut before the window (capRows), and a cap reached only through addresses without an object
 * (resolving did not record the window's references, so they are scanned). Each graph is
 * compared with the reference implementation node by node, matched by address.
 */
function longWalk(objects: number, strays: number, seed: number): Uint8Array {
  const r = mulberry32(seed);
  const int = (n: number) => Math.floor(r() * n);
  const w = new NetTraceWriter({ pointerSize: 8, eventsPerBlock: 32 });
  const id = { start: w.defineEvent(CLR, 1, { version: 2 }), end: w.defineEvent(CLR, 2, { version: 1 }), type: w.defineEvent(CLR, 15), root: w.defineEvent(CLR, 16), node: w.defineEvent(CLR, 18), edge: w.defineEvent(CLR, 19) };
  let ts = 1000;
  const emit = (meta: number, payload: Uint8Array) => w.event(meta, payload, { timestamp: (ts += 2), threadId: 5 });
  const base = 0x7f00_0000_0000;
  const addr = (i: number) => base + 32 * i;
  // Stray targets: inside the heap's span but not an object's start, and far outside it.
  // Half of the other references go a few objects ahead, so many objects are first touched by a
  // nearby row and the cut depends on each reference's row exactly.
  const target = (k: number) => (int(objects) < strays ? (int(2) ? addr(int(objects)) + 8 : base + 2 ** 40 + 16 * int(2 ** 30)) : addr(int(2) ? Math.min(objects - 1, k + 1 + int(8)) : int(objects)));
  emit(id.type, bulkType([0, 1, 2].map((i) => ({ id: 0x9000 + 0x100 * i, module: 0x10, nameId: 0x0200_0000 + i, name: `App.T${i}`, flags: 0 }))));
  emit(id.start, gcStart(7, 2, 1, 0));
  emit(id.root, bulkRootEdge(0, Array.from({ length: 20 }, () => ({ address: target(int(objects)), kind: int(3), flags: 0 })), 8));
  const targets: number[] = [];
  for (let i = 0, ev = 0; i < objects; i += 1000, ev++) {
    const nodes: NodeDef[] = [];
    for (let k = i; k < Math.min(objects, i + 1000); k++) {
      const edges = int(4);
      for (let e = 0; e < edges; e++) targets.push(target(k));
      nodes.push({ address: addr(k), size: 24 + 8 * int(4), type: 0x9000 + 0x100 * int(3), edges });
    }
    emit(id.node, bulkNode(ev, nodes, 8));
  }
  for (let i = 0, ev = 0; i < targets.length; i += 3000, ev++) emit(id.edge, bulkEdge(ev, targets.slice(i, i + 3000), 8));
  emit(id.end, gcEnd(7, 2));
  w.sequencePoint(ts + 1);
  return w.finish({ endMarker: true });
}

/** Per node (pseudo-nodes by order, others by address): type name, size, flags and children's keys in order. */
function nodeKeys(g: HeapGraph): Map<string, string> {
  const key = (n: number, pseudo: number[]) => (g.nodeFlags[n] & NODE_PSEUDO ? `pn${pseudo.indexOf(n)}` : `@${g.address[n].toString(16)}`);
  const pseudo: number[] = [];
  for (let n = 0; n < g.nodeCount; n++) if (g.nodeFlags[n] & NODE_PSEUDO) pseudo.push(n);
  const out = new Map<string, string>();
  for (let n = 0; n < g.nodeCount; n++) {
    const kids = Array.from(g.edgeTarget.subarray(g.firstEdge[n], g.firstEdge[n + 1]), (k) => key(k, pseudo));
    out.set(key(n, pseudo), `${g.types.names[g.nodeType[n]]}|${g.selfSize[n]}|${g.nodeFlags[n]}|${kids.join(',')}`);
  }
  return out;
}

/** Objects kept (nodes with a description), and the rows collected (the cap stops collecting in address order). */
function cut(g: HeapGraph): { kept: number; rows: number } {
  let kept = 0;
  for (let n = 0; n < g.nodeCount; n++) if (!(g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED))) kept++;
  return { kept, rows: Number(g.metadata.extra.objectsInDump) };
}

async function expectAsReference(bytes: Uint8Array, maxNodes: number): Promise<HeapGraph> {
  const want = await referenceHeapSnapshot(bytes, { maxNodes, weakRoots: 'drop' });
  const got = await readNetTraceSnapshot(new MemoryByteSource(bytes, 'long.nettrace'), { maxNodes, weakRoots: 'drop' });
  expect({ nodes: got.nodeCount, edges: got.edgeCount, problems: got.problems.counts }).toEqual({ nodes: want.nodeCount, edges: want.edgeCount, problems: want.problems.counts });
  const a = nodeKeys(got);
  const b = nodeKeys(want);
  let differ = 0;
  for (const [k, v] of b) if (a.get(k) !== v) differ++;
  expect({ maxNodes, differ }).toEqual({ maxNodes, differ: 0 });
  return want;
}

describe('the node cap on walks longer than its tail window', () => {
  const objects = TAIL + 9000;

  it('cuts inside the window when earlier rows exist (the cap is certain from the objects alone)', async () => {
    const bytes = longWalk(objects, 0, 11);
    // A few hundred objects below the walk's length: the count reaches it a few thousand rows before the end.
    const want = await expectAsReference(bytes, objects - 300);
    expect(want.problems.counts['node-cap-reached']).toBe(1);
    const { kept, rows } = cut(want);
    expect(rows - TAIL).toBeGreaterThan(1000);
    expect(kept).toBeGreaterThan(rows - TAIL);
    expect(kept).toBeLessThan(rows);
  }, 60_000);

  it('cuts when only the addresses without an object take the count over the cap', async () => {
    const bytes = longWalk(objects, 400, 12);
    const want = await expectAsReference(bytes, objects + 40);
    expect(want.problems.counts['node-cap-reached']).toBe(1);
    expect(cut(want).kept).toBeLessThan(objects);
  }, 60_000);

  it('cuts before the window (capRows walks every touch)', async () => {
    // Half the references go to distinct addresses without an object: the count grows ~2 per row
    // and reaches the cap long before its last row.
    const bytes = longWalk(3 * objects, 1.5 * objects, 13);
    const want = await expectAsReference(bytes, Math.round(1.8 * objects));
    expect(want.problems.counts['node-cap-reached']).toBe(1);
    const { kept, rows } = cut(want);
    expect(kept).toBeLessThan(rows - TAIL);
  }, 60_000);
});
