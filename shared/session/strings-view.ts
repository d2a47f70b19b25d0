import type { HeapAnalysis } from '../analysis/analyze.js';
import { stringValueStats, type StringValueStats } from '../analysis/duplicate-strings.js';
import { AppError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { hasStringValues, stringValueCount, stringValueText, stringValueTexts } from '../graph/string-values.js';
import type { RowWindow, SortSpec } from '../ipc/dtos-session.js';
import type { StringRow, StringSortKey } from '../ipc/dtos-strings.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import { clipWindow } from './row-order.js';

/**
 * The Strings view of a session: windows of duplicate-string rows (the numbers of
 * `heapscope strings`, shared/analysis/duplicate-strings.ts) sorted and filtered server-side, and
 * the string objects behind one value.
 *
 * Cached per analysis: the per-value columns (one pass over the nodes), the last order (values
 * kept, sorted) and the last value's instances. Memory: 16 bytes per distinct value plus the
 * order; nothing per node.
 */
export class StringsView {
  private stats: { analysis: HeapAnalysis; s: StringValueStats } | null = null;
  private orderCache: { key: string; stats: StringValueStats; order: Uint32Array } | null = null;
  private instancesCache: { analysis: HeapAnalysis; valueId: number; nodes: Uint32Array } | null = null;

  constructor(private readonly g: HeapGraph) {}

  /** Every call here needs string contents: only process dumps have them. */
  private check(): void {
    if (!hasStringValues(this.g)) {
      throw new AppError('strings/needs-dump', `a ${this.g.metadata.format} file has no string contents: duplicate strings need a full process dump`);
    }
  }

  private statsOf(a: HeapAnalysis, token: CancellationToken): StringValueStats {
    this.check();
    if (this.stats?.analysis !== a) this.stats = { analysis: a, s: stringValueStats(this.g, a.reachable, token)! };
    return this.stats.s;
  }

  private row(s: StringValueStats, v: number): StringRow {
    const t = this.g.stringValues!;
    const text = stringValueText(t, v);
    return {
      valueId: v,
      value: text,
      length: t.lengths[v],
      truncated: t.lengths[v] > text.length,
      count: s.count[v],
      totalBytes: s.totalBytes[v],
      wastedBytes: s.totalBytes[v] - s.copySize[v],
    };
  }

  /** Values with at least `minCount` copies whose text contains `filter`, in `sort` order (ties: first seen in the dump). */
  order(a: HeapAnalysis, sort: SortSpec<StringSortKey>, filter: string | undefined, minCount: number | undefined, token: CancellationToken = NEVER_CANCELLED): Uint32Array {
    const s = this.statsOf(a, token);
    const min = Math.max(1, minCount ?? 2);
    const f = filter?.trim().toLowerCase() ?? '';
    const key = `${sort.key}|${sort.dir}|${f}|${min}`;
    if (this.orderCache?.key === key && this.orderCache.stats === s) return this.orderCache.order;
    // All texts only when this order reads them (a filter or the value sort), once per table.
    const texts = f || sort.key === 'value' ? stringValueTexts(this.g.stringValues!) : [];
    const kept: number[] = [];
    for (let v = 0; v < s.count.length; v++) {
      if ((v & 0xffff) === 0) token.throwIfCancelled();
      if (s.count[v] >= min && (!f || texts[v].toLowerCase().includes(f))) kept.push(v);
    }
    const dir = sort.dir === 'asc' ? 1 : -1;
    const lengths = this.g.stringValues!.lengths;
    const num: Record<Exclude<StringSortKey, 'value'>, (v: number) => number> = {
      length: (v) => lengths[v],
      count: (v) => s.count[v],
      totalBytes: (v) => s.totalBytes[v],
      wastedBytes: (v) => s.totalBytes[v] - s.copySize[v],
    };
    if (sort.key === 'value') kept.sort((x, y) => dir * (texts[x] < texts[y] ? -1 : texts[x] > texts[y] ? 1 : 0) || x - y);
    else {
      const k = num[sort.key];
      kept.sort((x, y) => dir * (k(x) - k(y)) || x - y);
    }
    const order = Uint32Array.from(kept);
    this.orderCache = { key, stats: s, order };
    return order;
  }

  window(a: HeapAnalysis, req: { sort: SortSpec<StringSortKey>; start: number; end: number; filter?: string; minCount?: number }, token: CancellationToken = NEVER_CANCELLED): RowWindow<StringRow> {
    const order = this.order(a, req.sort, req.filter, req.minCount, token);
    const s = this.stats!.s;
    const w = clipWindow(req.start, req.end, order.length);
    const rows: StringRow[] = [];
    for (let i = w.start; i < w.end; i++) rows.push(this.row(s, order[i]));
    return { start: w.start, end: w.end, total: order.length, rows };
  }

  /** Every row of the order (CSV export). */
  allRows(a: HeapAnalysis, req: { sort: SortSpec<StringSortKey>; filter?: string; minCount?: number }, token: CancellationToken = NEVER_CANCELLED): { total: number; row: (i: number) => StringRow } {
    const order = this.order(a, req.sort, req.filter, req.minCount, token);
    const s = this.stats!.s;
    return { total: order.length, row: (i) => this.row(s, order[i]) };
  }

  /** A window of `instances` as rows made by `row` (the Instances grid's ObjectRow). */
  instanceWindow<R>(a: HeapAnalysis, req: { valueId: number; start: number; end: number }, row: (node: number) => R, token: CancellationToken = NEVER_CANCELLED): RowWindow<R> {
    const nodes = this.instances(a, req.valueId, token);
    const w = clipWindow(req.start, req.end, nodes.length);
    const rows: R[] = [];
    for (let i = w.start; i < w.end; i++) rows.push(row(nodes[i]));
    return { start: w.start, end: w.end, total: nodes.length, rows };
  }

  /** Reachable string objects holding value `valueId`, in node (address) order. */
  instances(a: HeapAnalysis, valueId: number, token: CancellationToken = NEVER_CANCELLED): Uint32Array {
    this.check();
    if (!Number.isInteger(valueId) || valueId < 0 || valueId >= stringValueCount(this.g.stringValues!)) throw new AppError('usage/bad-argument', `no string value ${valueId}`);
    const c = this.instancesCache;
    if (c && c.analysis === a && c.valueId === valueId) return c.nodes;
    const col = this.g.nodeStringValue!;
    const count = this.statsOf(a, token).count[valueId];
    const nodes = new Uint32Array(count);
    let k = 0;
    for (let n = 0; n < this.g.nodeCount && k < count; n++) {
      if ((n & 0xffff) === 0) token.throwIfCancelled();
      if (col[n] === valueId && a.reachable[n]) nodes[k++] = n;
    }
    this.instancesCache = { analysis: a, valueId, nodes };
    return nodes;
  }
}
