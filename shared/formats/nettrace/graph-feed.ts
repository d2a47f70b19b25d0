import type { HeapGraphBuilder } from '../../graph/heap-graph-builder.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../graph/heap-graph.js';
import type { CancellationToken } from '../../util/cancellation.js';
import type { HeapDumpCollection } from './heap-dump-collection.js';
import type { PseudoNodeTree } from './pseudo-node-tree.js';
import { forEachRow, type RcwRows } from './touch-sequence.js';

/**
 * The graph's node and edge columns from the numbered heap walk: CCW nodes, objects, pseudo-nodes.
 *
 * dotnet-gcdump describes nodes in that order (objects in queue order), which in node-index terms
 * is random. When no node is described twice, `columnsFromRows` writes the graph's columns
 * directly, what HeapGraphBuilder.setNode would store for the same descriptions, without the
 * builder: its per-node call, column growth and trimming copies cost ~80 ns per node (0.8 s of a
 * 10M-object walk, measured). Three passes: objects in queue order scatter (child count, row,
 * type, size) into a 16-byte record per node (one random write each: ~15 ns here, against ~20
 * for a random read that nothing else can overlap; three separate column writes cost more);
 * nodes in index order write the columns and turn the counts into CSR offsets, scattered back
 * by row; objects in queue order copy their children to their offsets. (Copying the children
 * in node order instead, one random read per node, measured 5–10% slower overall.)
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
  /** Memory that columnsFromRows may reuse (its contents are overwritten). */
  spare: Uint32Array;
}

export interface PseudoNodesInput {
  pn: PseudoNodeTree;
  /** Pseudo-nodes in pre-order, and the type of each. */
  order: readonly number[];
  pnType: readonly number[];
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

const ROW = 0x80000000;
const NO_ROWS: number[] = [];

/** The columns, or null when some node would be described twice. Frees the collection's rows when it succeeds. */
export function columnsFromRows(f: RowsInput, nodeCount: number, pns: PseudoNodesInput): NodeColumns | null {
  const { touched, c7End, token } = f;
  let free = f.spare;
  // Reused memory where it fits (no page faults), fresh otherwise.
  const take = (n: number): Uint32Array => {
    if (n > free.length) return new Uint32Array(n);
    const out = free.subarray(0, n);
    free = free.subarray(n);
    return out;
  };
  const rec = take(4 * c7End).fill(0); // child count | ROW, row, type, size
  const rcwRows = f.rcw ? f.rcw.rows : NO_ROWS;
  const store = f.c.rowInfo;
  // Rows in queue order (chunk by chunk, inlined: a callback per row costs more than the work).
  for (let ch = 0, k = 0, p = 0, rcwAt = 0; ch < store.chunks.length && k < f.used; ch++) {
    token.throwIfCancelled();
    const info = store.chunks[ch];
    for (let r = 0, n = store.counts[ch]; r < n && k < f.used; r++, k++) {
      const isRcw = rcwAt < rcwRows.length && rcwRows[rcwAt] === k;
      const count = info[3 * r + 2] + (isRcw ? 1 : 0);
      // Only writes here (a read of rec to catch a node described twice would stall on each
      // random address): duplicates are found by counting rows in node order below.
      const at = 4 * touched[p];
      rec[at] = count | ROW;
      rec[at + 1] = k;
      rec[at + 2] = info[3 * r + 1];
      rec[at + 3] = info[3 * r];
      p += 1 + count;
      if (isRcw) rcwAt++;
    }
  }
  const ccw = [...f.ccwRows].sort((x, y) => x.node - y.node);
  for (let i = 0; i < ccw.length; i++) {
    const n = ccw[i].node;
    if ((i > 0 && ccw[i - 1].node === n) || (n < c7End && rec[4 * n] !== 0)) return null;
  }
  // Node order: flags, the other nodes' type and size, CSR offsets (scattered back by row).
  const { pn, pnType } = pns;
  const pnByNode = pns.order.map((p) => ({ node: pn.nodeIndex[p], p })).sort((x, y) => x.node - y.node);
  const nodeType = new Uint32Array(nodeCount);
  const selfSize = new Uint32Array(nodeCount);
  const nodeFlags = new Uint8Array(nodeCount);
  const firstEdge = new Uint32Array(nodeCount + 1);
  const dest = take(f.used);
  const dangling: { node: number; child: number }[] = [];
  const valid = (n: number, kids: readonly number[]) => {
    let kept = 0;
    for (const k of kids) {
      if (k >= 0 && k < nodeCount) kept++;
      else dangling.push({ node: n, child: k });
    }
    return kept;
  };
  // Pseudo-nodes and CCW nodes (few) in node order; every other node is a row's or undefined.
  const special = [...pnByNode.map((x) => ({ node: x.node, p: x.p, ccw: -1 })), ...ccw.map((r, i) => ({ node: r.node, p: -1, ccw: i }))].sort((x, y) => x.node - y.node);
  let nextSpecial = special.length > 0 ? special[0].node : -1;
  let si = 0;
  let total = 0;
  let rows = 0;
  for (let n = 0; n < nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    firstEdge[n] = total;
    const count = n < c7End ? rec[4 * n] : 0;
    if (count !== 0) {
      rows++;
      dest[rec[4 * n + 1]] = total;
      nodeType[n] = rec[4 * n + 2];
      selfSize[n] = rec[4 * n + 3];
      total += count & ~ROW;
    } else if (n === nextSpecial) {
      const x = special[si++];
      nextSpecial = si < special.length ? special[si].node : -1;
      if (x.p >= 0) {
        nodeType[n] = pnType[x.p];
        nodeFlags[n] = NODE_PSEUDO | pn.flags[x.p];
        total += valid(n, pn.children[x.p]);
      } else {
        const r = ccw[x.ccw];
        nodeType[n] = r.type;
        selfSize[n] = 200;
        total += valid(n, [r.child]);
      }
    } else {
      nodeFlags[n] = NODE_UNDEFINED; // counted, with the sizes, by graphFromColumns
    }
  }
  firstEdge[nodeCount] = total;
  if (rows !== f.used) return null; // two rows share a node
  const edgeTarget = new Uint32Array(total);
  for (let ch = 0, k = 0, p = 0, rcwAt = 0; ch < store.chunks.length && k < f.used; ch++) {
    token.throwIfCancelled();
    const info = store.chunks[ch];
    for (let r = 0, n = store.counts[ch]; r < n && k < f.used; r++, k++) {
      const isRcw = rcwAt < rcwRows.length && rcwRows[rcwAt] === k;
      const count = info[3 * r + 2] + (isRcw ? 1 : 0);
      for (let o = dest[k], q = p + 1, end = q + count; q < end; o++, q++) edgeTarget[o] = touched[q];
      p += 1 + count;
      if (isRcw) rcwAt++;
    }
  }
  f.c.rowInfo.clear();
  const put = (n: number, kids: readonly number[]) => {
    let e = firstEdge[n];
    for (const k of kids) if (k >= 0 && k < nodeCount) edgeTarget[e++] = k;
  };
  for (const { node, p } of pnByNode) put(node, pn.children[p]);
  for (const r of ccw) put(r.node, [r.child]);
  return { nodeType, selfSize, nodeFlags, firstEdge, edgeTarget, dangling };
}

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
