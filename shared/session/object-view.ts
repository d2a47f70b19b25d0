import type { HeapAnalysis } from '../analysis/analyze.js';
import { AppError, assertNever } from '../errors.js';
import type { ObjectRow, ObjectSortKey, RowWindow, SortSpec } from '../ipc/contract.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { FROZEN_GENERATION_NAME, GEN_FROZEN, GEN_UNKNOWN, GENERATION_NAMES, NODE_PSEUDO, NODE_UNDEFINED, NONE } from '../graph/heap-graph.js';
import { hasStringValues, headOf, ROW_VALUE_CHARS, stringValueCount, stringValueOf, stringValueTexts } from '../graph/string-values.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import { isAddressQuery, parseAddress } from './address-index.js';
import { normFilter, OrderCache, sortByNumber, windowOf } from './row-order.js';

/**
 * The instances grid: the heap objects of one type, windowed, sorted and filtered.
 *
 * On first use the nodes are bucketed by type with one counting sort (CSR: `typeFirst[t] ..
 * typeFirst[t + 1]` in `typeNodes`, 4 bytes per object + 4 per type), so listing a type's
 * instances never rescans the heap. Orders are cached per (type, sort, filter, generation).
 *
 * Addresses are compared as doubles built from their two 32-bit halves (exact below 2^53, which
 * covers user-space addresses): no BigInt in the sort. The address filter: text that starts with
 * `0x` is one exact address (leading zeros allowed; two word compares per instance), bare hex is a
 * substring of the hex address (formatting only the instances of the one type being listed).
 * Dumps: `valueId` keeps the strings holding one distinct value (the Strings view's "show its
 * instances"): one compare per instance against the node's value-id column.
 */
export class ObjectView {
  private readonly cache = new OrderCache(12);
  private typeFirst: Uint32Array | null = null;
  private typeNodes: Uint32Array | null = null;
  private readonly words: Uint32Array;
  /** Dumps: string values are listed, and the filter also matches them. */
  private readonly values: boolean;

  constructor(private readonly g: HeapGraph) {
    this.words = new Uint32Array(g.address.buffer, g.address.byteOffset, g.nodeCount * 2);
    this.values = hasStringValues(g);
  }

  window(
    req: { typeIndex: number; sort: SortSpec<ObjectSortKey>; filter?: string; generation?: number; valueId?: number; start: number; end: number },
    a: HeapAnalysis | null,
  ): RowWindow<ObjectRow> {
    const order = this.order(req.typeIndex, req.sort, req.filter, req.generation, a, req.valueId);
    return windowOf(order, req.start, req.end, (n) => this.row(n, a));
  }

  order(typeIndex: number, sort: SortSpec<ObjectSortKey>, filter: string | undefined, generation: number | undefined, a: HeapAnalysis | null, valueId?: number): Uint32Array {
    if (!Number.isInteger(typeIndex) || typeIndex < 0 || typeIndex >= this.g.types.count) {
      throw new AppError('usage/bad-argument', `no type with index ${typeIndex}`);
    }
    if (valueId !== undefined && (!Number.isInteger(valueId) || valueId < 0 || !this.g.stringValues || valueId >= stringValueCount(this.g.stringValues))) {
      throw new AppError('usage/bad-argument', `no string value ${valueId}`);
    }
    const norm = normFilter(filter);
    // an exact address is keyed by its value, so 0x0010 and 0x10 share one order
    const exact = isAddressQuery(norm) ? parseAddress(norm) : null;
    const f = exact ? '' : norm.replace(/^0x/, '');
    // with values the whole text matters ("0xab" matches a value "0xab…", "ab" more), else only the hex
    const filterKey = exact ? `=${exact.hi}:${exact.lo}` : `~${this.values ? norm : f}`;
    const key = `${typeIndex}|${sort.key}|${sort.dir}|${generation ?? ''}|${valueId ?? ''}|${a ? 'a' : '-'}|${filterKey}`;
    return this.cache.get(key, () => this.computeOrder(typeIndex, sort, f, exact, generation, a, exact ? '' : norm, valueId));
  }

  /** Heap objects of type `t` in ordinal order (a view into the bucket array). */
  instances(t: number, token: CancellationToken = NEVER_CANCELLED): Uint32Array {
    if (!this.typeFirst) this.bucket(token);
    return this.typeNodes!.subarray(this.typeFirst![t], this.typeFirst![t + 1]);
  }

  row(n: number, a: HeapAnalysis | null): ObjectRow {
    const g = this.g;
    return {
      node: n,
      address: this.hex(n),
      size: g.selfSize[n],
      retainedSize: a ? a.retainedSize[n] : null,
      generation: generationName(g, n),
      reachable: a ? a.reachable[n] === 1 : null,
      ...(this.values ? this.valueOf(n) : {}),
    };
  }

  private valueOf(n: number): { value: string | null; valueLength: number | null } {
    const v = stringValueOf(this.g, n);
    return v ? { value: headOf(v.text, ROW_VALUE_CHARS), valueLength: v.length } : { value: null, valueLength: null };
  }

  /**
   * Which distinct string values contain `text` (case-insensitive; the kept prefix of each value),
   * one byte per distinct value: the filter then costs one lookup per instance, not one string search.
   */
  private valuesContaining(text: string): Uint8Array | null {
    const table = this.g.stringValues;
    if (!this.values || !table || !text) return null;
    const texts = stringValueTexts(table);
    const hit = new Uint8Array(texts.length);
    for (let i = 0; i < hit.length; i++) if (texts[i].toLowerCase().includes(text)) hit[i] = 1;
    return hit;
  }

  /** Address as 0x-prefixed lower-case hex, without BigInt. */
  hex(n: number): string {
    const hi = this.words[2 * n + 1];
    const lo = this.words[2 * n];
    return hi === 0 ? '0x' + lo.toString(16) : '0x' + hi.toString(16) + lo.toString(16).padStart(8, '0');
  }

  private computeOrder(
    t: number,
    sort: SortSpec<ObjectSortKey>,
    f: string,
    exact: { hi: number; lo: number } | null,
    generation: number | undefined,
    a: HeapAnalysis | null,
    text: string,
    only: number | undefined,
  ): Uint32Array {
    const all = this.instances(t);
    let ids: Uint32Array;
    if (f || exact || generation !== undefined || text || only !== undefined) {
      const out: number[] = [];
      const gen = this.g.generation;
      const words = this.words;
      // Dumps: a row also matches when its string value contains the filter text.
      const hits = this.valuesContaining(text);
      const valueId = this.g.nodeStringValue;
      for (let i = 0; i < all.length; i++) {
        const n = all[i];
        if (generation !== undefined && gen[n] !== generation) continue;
        if (only !== undefined && (valueId === undefined || valueId[n] !== only)) continue;
        if (exact) {
          if (words[2 * n] !== exact.lo || words[2 * n + 1] !== exact.hi) continue;
        } else if (f || hits) {
          const byAddress = f !== '' && this.hex(n).slice(2).includes(f);
          const byValue = hits !== null && valueId !== undefined && valueId[n] !== NONE && hits[valueId[n]] === 1;
          if (!byAddress && !byValue) continue;
        }
        out.push(n);
      }
      ids = Uint32Array.from(out);
    } else {
      ids = all.slice();
    }
    switch (sort.key) {
      case 'address':
        return this.sortByAddress(ids, sort.dir);
      case 'size':
        return sortByNumber(ids, this.g.selfSize, sort.dir, null);
      case 'retainedSize':
        return a ? sortByNumber(ids, a.retainedSize, sort.dir, null) : ids;
      case 'generation':
        return sortByNumber(ids, this.g.generation, sort.dir, null);
      default:
        return assertNever(sort.key, 'object sort key');
    }
  }

  /** Sort by address: a local key array of k doubles (8 bytes per listed object), no BigInt. */
  private sortByAddress(ids: Uint32Array, dir: 'asc' | 'desc'): Uint32Array {
    const words = this.words;
    const k = ids.length;
    const key = new Float64Array(k);
    const pos = new Uint32Array(k);
    for (let i = 0; i < k; i++) {
      const n = ids[i];
      key[i] = words[2 * n + 1] * 4294967296 + words[2 * n];
      pos[i] = i;
    }
    sortByNumber(pos, key, dir, ids);
    const out = new Uint32Array(k);
    for (let i = 0; i < k; i++) out[i] = ids[pos[i]];
    return out;
  }

  private bucket(token: CancellationToken): void {
    const g = this.g;
    const tc = g.types.count;
    const { nodeType, nodeFlags } = g;
    const first = new Uint32Array(tc + 1);
    for (let n = 0; n < g.nodeCount; n++) {
      if ((n & 0xffff) === 0) token.throwIfCancelled();
      if (nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
      first[nodeType[n] + 1]++;
    }
    for (let t = 0; t < tc; t++) first[t + 1] += first[t];
    const fill = first.slice(0, tc);
    const nodes = new Uint32Array(first[tc]);
    for (let n = 0; n < g.nodeCount; n++) {
      if (nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
      nodes[fill[nodeType[n]]++] = n;
    }
    this.typeFirst = first;
    this.typeNodes = nodes;
  }
}

/** 'gen0' … 'POH', 'frozen (non-GC heap)', or null when the file has no generation data or the object is in none. */
export function generationName(g: HeapGraph, n: number): string | null {
  if (!g.hasGenerationData) return null;
  const gen = g.generation[n];
  if (gen === GEN_FROZEN) return FROZEN_GENERATION_NAME;
  return gen === GEN_UNKNOWN || gen >= GENERATION_NAMES.length ? null : GENERATION_NAMES[gen];
}
