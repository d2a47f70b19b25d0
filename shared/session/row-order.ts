import { AppError } from '../errors.js';
import type { RowWindow, SortDir } from '../ipc/contract.js';

/**
 * Sorted, filtered row orders for windowed views, cached per view key.
 *
 * A view (types, one type's instances, a diff) is an index array: the row ids that pass the filter,
 * in sort order. Computing it costs one filter pass plus one typed-array sort; every later window of
 * the same view is a `subarray` (DevTools keeps `#aggregates[key]` for the same reason). Orders are
 * kept in a small LRU, so scrolling, and going back to a previous sort, costs nothing, while memory
 * stays bounded: at most `capacity` arrays of 4 bytes per row.
 *
 * Ties are broken by a precomputed rank (usually the name rank), then by row id, so an order is
 * total and the same on every machine; desc reverses the key but never the tie-break.
 */

/** Most rows one window call may ask for (a grid asks for 100–500). */
export const MAX_WINDOW = 10_000;

export class OrderCache {
  private readonly orders = new Map<string, Uint32Array>();

  constructor(private readonly capacity = 16) {}

  get(key: string, compute: () => Uint32Array): Uint32Array {
    const hit = this.orders.get(key);
    if (hit) {
      // refresh LRU position
      this.orders.delete(key);
      this.orders.set(key, hit);
      return hit;
    }
    const order = compute();
    this.orders.set(key, order);
    if (this.orders.size > this.capacity) {
      const oldest = this.orders.keys().next().value;
      if (oldest !== undefined) this.orders.delete(oldest);
    }
    return order;
  }

  clear(): void {
    this.orders.clear();
  }

  get size(): number {
    return this.orders.size;
  }
}

/**
 * Sort `ids` in place by `key[id]` (a numeric column indexed by row id), ties by `tie[id]` then id.
 * Cost: O(k log k) comparator calls; 100k rows take a few tens of ms.
 */
export function sortByNumber(ids: Uint32Array, key: ArrayLike<number>, dir: SortDir, tie: ArrayLike<number> | null): Uint32Array {
  const sign = dir === 'asc' ? 1 : -1;
  if (tie) {
    ids.sort((a, b) => sign * (key[a] - key[b]) || tie[a] - tie[b] || a - b);
  } else {
    ids.sort((a, b) => sign * (key[a] - key[b]) || a - b);
  }
  return ids;
}

/** Sort by a precomputed rank (e.g. name rank), which already orders ties by id. */
export function sortByRank(ids: Uint32Array, rank: ArrayLike<number>, dir: SortDir): Uint32Array {
  if (dir === 'asc') ids.sort((a, b) => rank[a] - rank[b]);
  else ids.sort((a, b) => rank[b] - rank[a]);
  return ids;
}

/**
 * Rank of every string in code-unit order (locale-independent: the same order on every machine and
 * in the CLI), ties by index; nulls rank last. Computed once per column: O(T log T) string
 * comparisons.
 */
export function stringRank(values: readonly (string | null)[]): Uint32Array {
  const n = values.length;
  const ids = new Uint32Array(n);
  for (let i = 0; i < n; i++) ids[i] = i;
  ids.sort((a, b) => {
    const x = values[a];
    const y = values[b];
    if (x === y) return a - b;
    if (x === null) return 1;
    if (y === null) return -1;
    return x < y ? -1 : x > y ? 1 : a - b;
  });
  const rank = new Uint32Array(n);
  for (let r = 0; r < n; r++) rank[ids[r]] = r;
  return rank;
}

/** Validated, clipped [start, end) of a window over `total` rows. */
export function clipWindow(start: number, end: number, total: number): { start: number; end: number } {
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < 0 || end < start) {
    throw new AppError('usage/bad-argument', `bad window [${start}, ${end})`);
  }
  if (end - start > MAX_WINDOW) throw new AppError('usage/bad-argument', `window too large: ${end - start} rows (at most ${MAX_WINDOW})`);
  const s = Math.min(start, total);
  return { start: s, end: Math.min(end, total) };
}

/** The window [start, end) of `order` mapped to DTOs. */
export function windowOf<T>(order: Uint32Array, start: number, end: number, row: (id: number) => T): RowWindow<T> {
  const w = clipWindow(start, end, order.length);
  const rows: T[] = [];
  for (let i = w.start; i < w.end; i++) rows.push(row(order[i]));
  return { start: w.start, end: w.end, total: order.length, rows };
}

/** Normalised filter text ('' = no filter). */
export function normFilter(filter: string | undefined): string {
  return (filter ?? '').trim().toLowerCase();
}
