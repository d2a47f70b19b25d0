import { FILL_ARRAY, FILL_COLLECTION, type CollectionTable, type FillFacts } from '../../graph/fill-facts.js';
import { GrowableFloat64Array, GrowableUint32Array, GrowableUint8Array } from '../../util/growable-array.js';

/**
 * ARRAY_FILL, COLLECTION_FILL and COLLECTION records (dump-stream.ts) as they arrive, then as
 * per-node columns (graph/fill-facts.ts). Kept as (object, kind, count, capacity) rows while
 * decoding, since only arrays and collections have one: 16 bytes per such object until `columns`
 * scatters them. COLLECTION records also fill the collection table (node, kind, storage bytes:
 * 13 bytes per collection), in object order.
 */
export class FillRecords {
  private readonly object = new GrowableUint32Array(64);
  private readonly kind = new GrowableUint32Array(64);
  private readonly count = new GrowableUint32Array(64);
  private readonly capacity = new GrowableUint32Array(64);
  private readonly collectionNode = new GrowableUint32Array(16);
  private readonly collectionKind = new GrowableUint8Array(16);
  private readonly collectionStorage = new GrowableFloat64Array(16);
  /** Per type id: element size, 0 until an array of the type is seen. */
  private readonly elementSize: number[] = [];

  get length(): number {
    return this.object.length;
  }

  /** Index of the last object with a record, or -1 (each object has at most one). */
  get lastObject(): number {
    return this.object.length === 0 ? -1 : this.object.raw[this.object.length - 1];
  }

  /** Returns an error text for an element size that differs from earlier arrays of the type, else null. */
  array(object: number, type: number, length: number, nonDefault: number, elementSize: number): string | null {
    if (nonDefault > length) return `an array of length ${length} with ${nonDefault} non-default elements`;
    const known = this.elementSize[type];
    if (known !== undefined && known !== elementSize) return `arrays of type ${type} with element sizes ${known} and ${elementSize}`;
    this.elementSize[type] = elementSize;
    this.push(object, FILL_ARRAY, nonDefault, length);
    return null;
  }

  /** A COLLECTION_FILL record (no kind, no storage), or with `kind` and `storage` a COLLECTION record. */
  collection(object: number, count: number, capacity: number, kind?: number, storage?: number): void {
    this.push(object, FILL_COLLECTION, count, capacity);
    if (kind === undefined || storage === undefined) return;
    this.collectionNode.push(object);
    this.collectionKind.push(kind);
    this.collectionStorage.push(storage);
  }

  private push(object: number, kind: number, count: number, capacity: number): void {
    this.object.push(object);
    this.kind.push(kind);
    this.count.push(count);
    this.capacity.push(capacity);
  }

  /** Columns over `nodes` nodes and `types` types, or undefined when the stream had no such record. */
  columns(nodes: number, types: number): FillFacts | undefined {
    if (this.object.length === 0) return undefined;
    const kind = new Uint8Array(nodes);
    const count = new Uint32Array(nodes);
    const capacity = new Uint32Array(nodes);
    const o = this.object.raw;
    for (let i = 0; i < this.object.length; i++) {
      kind[o[i]] = this.kind.raw[i];
      count[o[i]] = this.count.raw[i];
      capacity[o[i]] = this.capacity.raw[i];
    }
    const elementSize = new Uint32Array(types);
    this.elementSize.forEach((s, t) => (elementSize[t] = s));
    const n = this.collectionNode.length;
    const collections: CollectionTable | undefined =
      n === 0 ? undefined : { node: this.collectionNode.raw.slice(0, n), kind: this.collectionKind.raw.slice(0, n), storage: this.collectionStorage.raw.slice(0, n) };
    return { kind, count, capacity, elementSize, ...(collections ? { collections } : {}) };
  }
}
