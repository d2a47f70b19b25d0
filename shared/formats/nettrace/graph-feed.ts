import type { HeapGraphBuilder } from '../../graph/heap-graph-builder.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../graph/heap-graph.js';
import type { CancellationToken } from '../../util/cancellation.js';
import type { HeapDumpCollection } from './heap-dump-collection.js';
import type { PseudoNodeTree } from './pseudo-node-tree.js';
import { forEachRow, type RcwRows } from './touch-sequence.js';

/**
 * Describes every node to the HeapGraphBuilder: CCW nodes, objects, pseudo-nodes.
 *
 * dotnet-gcdump describes them in that order (objects in queue order), which in node-index terms
 * is random: each setNode would then read and write five builder columns at a random index, and
 * the builder would compact its edge pool once more at the end (~200 ns per object measured).
 * So when no node is described twice, `planNodeOrder` first lays the objects out by node index
 * with two tight scatter loops (a 16-byte record per node, then each object's children copied
 * into a node-ordered CSR array; ~20 bytes per object and 4 per reference), and `feedInNodeOrder`
 * then describes nodes 0, 1, 2, … reading both sequentially, undefined nodes included and flagged
 * UNDEFINED again, as the gcdump reader does: the builder's edge pool is then its final CSR array.
 * With distinct nodes the order of descriptions changes nothing in the graph. When a node is
 * described twice (the same address in two BulkNode entries, or an object that is also a CCW's
 * IUnknown), the builder's "last description wins" and its problem list depend on the order: then
 * `feedInQueueOrder` describes nodes exactly in dotnet-gcdump's order.
 *
 * An object's children are its touches after its own: its references, then its RCW's IUnknown.
 */
export interface RowsInput {
  c: HeapDumpCollection;
  rcw: RcwRows | null;
  /** Objects (rows) kept. */
  used: number;
  /** Nodes below this are pseudo-nodes, early (root-side) nodes and the objects' nodes. */
  c7End: number;
  /** Node index at each touch position. */
  touched: Uint32Array;
  ccwRows: readonly { node: number; type: number; child: number }[];
  token: CancellationToken;
  /** Memory that planNodeOrder may reuse (its contents are overwritten). */
  spare: Uint32Array;
}

export interface PseudoNodesInput {
  pn: PseudoNodeTree;
  /** Pseudo-nodes in pre-order, and the type of each. */
  order: readonly number[];
  pnType: readonly number[];
}

/** Objects laid out by node index: rec[4n …] = child count | ROW, type, size, first child in `children`. */
export interface NodeOrderPlan {
  rec: Uint32Array;
  children: Uint32Array;
  c7End: number;
  ccwRows: readonly { node: number; type: number; child: number }[];
  token: CancellationToken;
}

const ROW = 0x80000000;
const NO_ROWS: number[] = [];

/** The node-ordered layout, or null when some node would be described twice. Frees the collection's rows when it succeeds. */
export function planNodeOrder(f: RowsInput): NodeOrderPlan | null {
  const { touched, c7End, token } = f;
  // Every random access below is a write (a scatter): on this kind of heap a random read costs
  // ~100 ns because nothing else can proceed until it arrives, a random write a few ns.
  let free = f.spare;
  // Reused memory where it fits (no page faults), fresh otherwise.
  const take = (n: number): Uint32Array => {
    if (n > free.length) return new Uint32Array(n);
    const out = free.subarray(0, n);
    free = free.subarray(n);
    return out;
  };
  const rec = take(4 * c7End).fill(0);
  const rcwRows = f.rcw ? f.rcw.rows : NO_ROWS;
  const store = f.c.rowInfo;
  // Rows in queue order (chunk by chunk, inlined: a callback per row costs more than the work).
  for (let ch = 0, k = 0, p = 0, rcwAt = 0; ch < store.chunks.length && k < f.used; ch++) {
    token.throwIfCancelled();
    const info = store.chunks[ch];
    for (let r = 0, n = store.counts[ch]; r < n && k < f.used; r++, k++) {
      const isRcw = rcwAt < rcwRows.length && rcwRows[rcwAt] === k;
      const count = info[3 * r + 2] + (isRcw ? 1 : 0);
      const at = 4 * touched[p];
      rec[at] = count | ROW;
      rec[at + 1] = info[3 * r + 1];
      rec[at + 2] = info[3 * r];
      rec[at + 3] = k;
      p += 1 + count;
      if (isRcw) rcwAt++;
    }
  }
  const ccw = [...f.ccwRows].sort((x, y) => x.node - y.node);
  for (let i = 0; i < ccw.length; i++) {
    const n = ccw[i].node;
    if ((i > 0 && ccw[i - 1].node === n) || (n < c7End && rec[4 * n] !== 0)) return null;
  }
  // Children offsets in node order, also scattered back by row for the copy below.
  const dest = take(f.used);
  let rows = 0;
  let total = 0;
  for (let at = 0; at < rec.length; at += 4) {
    if (rec[at] === 0) continue;
    rows++;
    dest[rec[at + 3]] = total;
    rec[at + 3] = total;
    total += rec[at] & ~ROW;
  }
  if (rows !== f.used) return null; // two rows share a node
  const children = take(total);
  for (let ch = 0, k = 0, p = 0, rcwAt = 0; ch < store.chunks.length && k < f.used; ch++) {
    token.throwIfCancelled();
    const info = store.chunks[ch];
    for (let r = 0, n = store.counts[ch]; r < n && k < f.used; r++, k++) {
      const isRcw = rcwAt < rcwRows.length && rcwRows[rcwAt] === k;
      const count = info[3 * r + 2] + (isRcw ? 1 : 0);
      for (let o = dest[k], q = p + 1, end = q + count; q < end; o++, q++) children[o] = touched[q];
      p += 1 + count;
      if (isRcw) rcwAt++;
    }
  }
  f.c.rowInfo.clear();
  return { rec, children, c7End, ccwRows: ccw, token };
}

/** The graph's node and edge columns, in node order. */
export interface NodeColumns {
  nodeType: Uint32Array;
  selfSize: Uint32Array;
  nodeFlags: Uint8Array;
  firstEdge: Uint32Array;
  edgeTarget: Uint32Array;
  /** References to nodes that do not exist, dropped (HeapGraphBuilder's 'dangling-reference'). */
  dangling: { node: number; child: number }[];
}

/**
 * Nodes 0 … nodeCount−1 written straight into the graph's columns (after planNodeOrder), with
 * what HeapGraphBuilder.setNode would store for the same descriptions in node order: the
 * builder's per-node call, its column growth and its final trimming copies cost ~80 ns per node
 * (0.8 s of a 10M-object walk, measured), this one sequential pass ~10.
 */
export function columnsInNodeOrder(plan: NodeOrderPlan, nodeCount: number, edgeCount: number, pns: PseudoNodesInput): NodeColumns {
  const { rec, children, c7End, ccwRows, token } = plan;
  const { pn, pnType } = pns;
  const pnByNode = pns.order.map((p) => ({ node: pn.nodeIndex[p], p })).sort((x, y) => x.node - y.node);
  const nodeType = new Uint32Array(nodeCount);
  const selfSize = new Uint32Array(nodeCount);
  const nodeFlags = new Uint8Array(nodeCount);
  const firstEdge = new Uint32Array(nodeCount + 1);
  const edgeTarget = new Uint32Array(edgeCount);
  const dangling: { node: number; child: number }[] = [];
  let e = 0;
  // A few pseudo-node or CCW children, checked like the builder does (object children are node
  // indices below c7End by construction).
  const put = (n: number, kids: readonly number[]) => {
    for (const k of kids) {
      if (k >= 0 && k < nodeCount) edgeTarget[e++] = k;
      else dangling.push({ node: n, child: k });
    }
  };
  let nextPn = 0;
  let nextCcw = 0;
  for (let n = 0; n < nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    firstEdge[n] = e;
    const at = 4 * n;
    if (n < c7End && rec[at] !== 0) {
      nodeType[n] = rec[at + 1];
      selfSize[n] = rec[at + 2];
      for (let q = rec[at + 3], end = q + (rec[at] & ~ROW); q < end; q++) edgeTarget[e++] = children[q];
    } else if (nextPn < pnByNode.length && pnByNode[nextPn].node === n) {
      const p = pnByNode[nextPn++].p;
      nodeType[n] = pnType[p];
      nodeFlags[n] = NODE_PSEUDO | pn.flags[p];
      put(n, pn.children[p]);
    } else if (nextCcw < ccwRows.length && ccwRows[nextCcw].node === n) {
      const r = ccwRows[nextCcw++];
      nodeType[n] = r.type;
      selfSize[n] = 200;
      put(n, [r.child]);
    } else nodeFlags[n] = NODE_UNDEFINED;
  }
  firstEdge[nodeCount] = e;
  return { nodeType, selfSize, nodeFlags, firstEdge, edgeTarget: e === edgeCount ? edgeTarget : edgeTarget.slice(0, e), dangling };
}

/** Describe nodes in dotnet-gcdump's order: CCWs, objects in queue order, pseudo-nodes in pre-order. */
export function feedInQueueOrder(b: HeapGraphBuilder, f: RowsInput, pns: PseudoNodesInput): void {
  const { touched, token } = f;
  const { pn, pnType } = pns;
  for (const r of f.ccwRows) b.setNode(r.node, r.type, 200, [r.child]);
  forEachRow(f.c, f.rcw, f.used, (k, p, info, r, isRcw) => {
    if ((k & 0xffff) === 0) token.throwIfCancelled();
    b.setNode(touched[p], info[3 * r + 1], info[3 * r], touched, p + 1, info[3 * r + 2] + (isRcw ? 1 : 0));
  });
  f.c.rowInfo.clear();
  for (const p of pns.order) {
    const n = pn.nodeIndex[p];
    b.setNode(n, pnType[p], 0, pn.children[p]);
    b.addFlags(n, NODE_PSEUDO | pn.flags[p]);
  }
}
