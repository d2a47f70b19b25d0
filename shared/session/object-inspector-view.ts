import type { HeapAnalysis } from '../analysis/analyze.js';
import { isPseudo } from '../analysis/paths-to-roots.js';
import { AppError } from '../errors.js';
import type { AddressLookup, ObjectInfo, ReferenceRow, RowWindow } from '../ipc/contract.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import { AddressIndex, parseAddress } from './address-index.js';
import { checkNode } from './dominator-view.js';
import { generationName } from './object-view.js';
import { clipWindow } from './row-order.js';
import { hasStringValues, stringPreviewOf, stringValueOf } from '../graph/string-values.js';

/** A dump's System.String: the value as the graph keeps it (the reader's bound, 1,024 chars) and its full length. */
function valueFields(g: HeapGraph, n: number): { value: string | null; valueLength: number | null } {
  const v = stringValueOf(g, n);
  return v ? { value: v.text, valueLength: v.length } : { value: null, valueLength: null };
}

/**
 * The object inspector's queries: one object's details, a window of its outgoing references, a
 * window of its incoming references (retainers), and "go to address".
 *
 * Windows are slices of CSR runs the graph and the analysis already hold (`edgeTarget` from
 * `firstEdge[n]`, `retainerNode` from `firstRetainer[n]`), so a window costs O(end − start)
 * whatever the object's degree: a hub with a million references sends 200 rows, never the list.
 * Each row carries its own reference counts so the UI can offer to expand it without asking.
 */
export class ObjectInspectorView {
  private readonly addresses: AddressIndex;

  constructor(
    private readonly g: HeapGraph,
    private readonly hex: (n: number) => string,
  ) {
    this.addresses = new AddressIndex(g);
  }

  info(a: HeapAnalysis | null, n: number): ObjectInfo {
    const g = this.g;
    checkNode(g, n);
    const t = g.nodeType[n];
    const idom = a ? a.idom[n] : 0xffffffff;
    return {
      node: n,
      typeIndex: t,
      type: g.types.names[t],
      module: g.types.modules[t],
      address: this.hex(n),
      size: g.selfSize[n],
      retainedSize: a ? a.retainedSize[n] : null,
      generation: generationName(g, n),
      pseudo: isPseudo(g, n),
      reachable: a ? a.reachable[n] === 1 : null,
      dominator: idom === 0xffffffff ? null : idom,
      outgoing: g.firstEdge[n + 1] - g.firstEdge[n],
      incoming: a ? a.retainers.firstRetainer[n + 1] - a.retainers.firstRetainer[n] : 0,
      addressKind: this.addressKind(n),
      ...(hasStringValues(g) ? valueFields(g, n) : {}),
    };
  }

  /**
   * Outgoing references (graph order, duplicates kept as the file has them) or incoming ones
   * (retainers; needs the analysis' reverse CSR).
   */
  references(a: HeapAnalysis | null, node: number, direction: 'outgoing' | 'incoming', start: number, end: number): RowWindow<ReferenceRow> {
    const g = this.g;
    checkNode(g, node);
    let list: Uint32Array;
    if (direction === 'outgoing') {
      list = g.edgeTarget.subarray(g.firstEdge[node], g.firstEdge[node + 1]);
    } else {
      if (!a) throw new AppError('usage/bad-argument', 'incoming references need the analysis');
      const { firstRetainer, retainerNode } = a.retainers;
      list = retainerNode.subarray(firstRetainer[node], firstRetainer[node + 1]);
    }
    const w = clipWindow(start, end, list.length);
    const rows: ReferenceRow[] = [];
    for (let i = w.start; i < w.end; i++) rows.push(this.referenceRow(a, list[i]));
    return { start: w.start, end: w.end, total: list.length, rows };
  }

  referenceRow(a: HeapAnalysis | null, n: number): ReferenceRow {
    const g = this.g;
    const t = g.nodeType[n];
    const preview = g.nodeStringValue ? stringPreviewOf(g, n) : null;
    return {
      node: n,
      typeIndex: t,
      type: g.types.names[t],
      address: this.hex(n),
      size: g.selfSize[n],
      retainedSize: a ? a.retainedSize[n] : null,
      generation: generationName(g, n),
      pseudo: isPseudo(g, n),
      outgoing: g.firstEdge[n + 1] - g.firstEdge[n],
      incoming: a ? a.retainers.firstRetainer[n + 1] - a.retainers.firstRetainer[n] : null,
      ...(preview !== null ? { preview } : {}),
    };
  }

  /**
   * The object at `text` (hex, `0x` optional), or the one containing it; null when no object
   * starts at or spans it. The first call builds the address index (address-index.ts).
   */
  atAddress(a: HeapAnalysis | null, text: string, token: CancellationToken = NEVER_CANCELLED): AddressLookup | null {
    const { hi, lo } = parseAddress(text);
    const hit = this.addresses.find(hi, lo, token);
    return hit ? { object: this.info(a, hit.node), offset: hit.offset } : null;
  }

  private addressKind(n: number): ObjectInfo['addressKind'] {
    const g = this.g;
    if (g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED) || g.address[n] === 0n) return 'none';
    return g.metadata.format === 'cf-heaplog' ? 'id' : 'address';
  }
}
