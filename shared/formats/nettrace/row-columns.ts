import { InPlaceWords } from '../../util/in-place-words.js';

/**
 * Per BulkNode row (queue order): the object's size, its type key and its EdgeCount, each in one
 * contiguous column that grows in place (InPlaceWords), so that for a walk in address order,
 * where row k is node first + k, the three become the graph's selfSize, nodeType and firstEdge
 * columns where they lie: the type key is replaced by the type index and the EdgeCount by the
 * running start of the row's references, in one pass (object-columns.ts), instead of copying
 * 12 bytes per row into three fresh columns (120 MB of first touches at 10M objects, ~3–5 µs per
 * 4 KB page on the 2-core VM, plus the pass).
 *
 * Row k is at word FRONT + k of each store: the words in front are room for the pseudo-nodes,
 * which come first in the graph's numbering (moved up once when there are more of them).
 */
export const FRONT = 1 << 16;

/** Which field of the rows (a store's index). */
export const RowField = { Size: 0, Type: 1, Edges: 2 } as const;
export type RowField = (typeof RowField)[keyof typeof RowField];

export class RowColumns {
  /** Rows stored. */
  length = 0;
  /** The stores' words, re-read after `room` (row k at FRONT + k). */
  size: Uint32Array;
  type: Uint32Array;
  edges: Uint32Array;
  private readonly stores: InPlaceWords[];
  private taken = false;

  /**
   * `maxRows`: the most rows expected, which bounds the address space reserved (a graph keeps it
   * while it lives; without a bound, 256 MiB per column: 67M rows, past which they are copied as
   * they grow). `sharedMemory`: in SharedArrayBuffers, else in plain memory (InPlaceWords).
   */
  constructor(maxRows?: number, sharedMemory = true) {
    const max = FRONT + Math.max(0, Math.ceil(maxRows ?? 1 << 26));
    this.stores = [0, 1, 2].map(() => new InPlaceWords(FRONT + 1024, max, sharedMemory, maxRows !== undefined));
    [this.size, this.type, this.edges] = this.stores.map((s) => s.words);
  }

  /** Make room for `count` more rows, written from word `wordAt` on (then `commit`). */
  room(count: number): void {
    if (this.taken) throw new Error('RowColumns: appended after its columns were taken');
    const need = FRONT + this.length + count;
    if (need <= this.size.length) return;
    [this.size, this.type, this.edges] = this.stores.map((s) => s.ensure(need, FRONT + this.length));
  }

  get wordAt(): number {
    return FRONT + this.length;
  }

  commit(rows: number): void {
    this.length = rows;
  }

  /** A field's values by row (index k is row k), for reading and for fixing a row in place. */
  view(field: RowField): Uint32Array {
    return (field === RowField.Size ? this.size : field === RowField.Type ? this.type : this.edges).subarray(FRONT, FRONT + this.length);
  }

  /**
   * A field as a graph column of `length` entries whose entry front + k is row k's value: a view
   * of the same words, the entries before `front` zero (moved up once when `front` > FRONT).
   * Entries from front + rows on are whatever the store holds: the caller writes them. After
   * the first call no rows can be added.
   */
  column(field: RowField, front: number, length: number): Uint32Array {
    this.taken = true;
    const s = this.stores[field];
    const n = this.length;
    if (front <= FRONT) return s.ensure(FRONT - front + length, FRONT + n).subarray(FRONT - front, FRONT - front + length);
    const words = s.ensure(Math.max(length, front + n), FRONT + n);
    words.copyWithin(front, FRONT, FRONT + n);
    words.fill(0, 0, front);
    return words.subarray(0, length);
  }
}
