import { FILL_ARRAY, FILL_COLLECTION, type FillFacts } from '../../graph/fill-facts.js';
import { GrowableUint32Array } from '../../util/growable-array.js';

/**
 * ARRAY_FILL and COLLECTION_FILL records (dump-stream.ts) as they arrive, then as per-node columns
 * (graph/fill-facts.ts). Kept as (object, count, capacity) triples while decoding, since only
 * arrays and collections have one: 12 bytes per such object until `columns` scatters them.
 */
export class FillRecords {
  private readonly object = new GrowableUint32Array(64);
  private readonly kind = new GrowableUint32Array(64);
  private readonly count = new GrowableUint32Array(64);
  private readonly capacity = new GrowableUint32Array(64);
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

  collection(object: number, count: number, capacity: number): void {
    this.push(object, FILL_COLLECTION, count, capacity);
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
    return { kind, count, capacity, elementSize };
  }
}
