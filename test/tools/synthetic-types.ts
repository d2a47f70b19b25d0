import type { HeapGraphBuilder } from '../../shared/graph/heap-graph-builder.js';

/**
 * The type table of the synthetic heap (synthetic-heap.ts): .NET-looking names and modules,
 * dotnet-gcdump's size-bucket types for objects over 1,000 bytes, and a few hundred generated
 * application classes so the table has a realistic long tail.
 *
 * Real types come first and pseudo types last, as in dotnet-gcdump files. A type's stored size is
 * the size of its first object (-1 when it has none), which is what the gcdump writer expects.
 */
export interface TypeChoice {
  /** Type index of the plain (unbucketed) type. */
  readonly index: number;
  /** Type index per size bucket (> 1K, > 10K, > 100K, > 1M, > 10M, > 100M); arrays and strings only. */
  readonly buckets: readonly number[] | null;
  /** Fixed size of a class instance (arrays and strings compute theirs). */
  readonly size: number;
  /** How many breadth-first children (fresh objects) an instance may own. */
  readonly maxTree: number;
  /** How many references an instance may hold in total. */
  readonly maxRefs: number;
  readonly array: boolean;
  /** Bytes per element (arrays). */
  readonly elem: number;
  readonly holdsRefs: boolean;
  readonly leaf: 'string' | null;
}

const CORELIB = '/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.0/System.Private.CoreLib.dll';
const COLLECTIONS = '/usr/share/dotnet/shared/Microsoft.NETCore.App/8.0.0/System.Collections.dll';
const APP = '/app/SyntheticApp.dll';
const BUCKETS: readonly [number, string][] = [
  [100_000_000, '100M'],
  [10_000_000, '10M'],
  [1_000_000, '1M'],
  [100_000, '100K'],
  [10_000, '10K'],
  [1_000, '1K'],
];
const GENERATED_CLASSES = 300;

export class SyntheticTypes {
  private readonly names: string[] = [];
  private readonly modules: (string | null)[] = [];
  private readonly firstSize: number[] = [];

  readonly string: TypeChoice;
  readonly byteArray: TypeChoice;
  readonly int32Array: TypeChoice;
  readonly objectArray: TypeChoice;
  readonly orderArray: TypeChoice;
  readonly entryArray: TypeChoice;
  readonly linkedList: number;
  readonly linkedListNode: number;
  readonly chainNode: number;
  readonly dictionary: number;
  readonly customer: number;
  /** Cumulative weights and choices for tree units. */
  private readonly weights: number[] = [];
  private readonly choices: TypeChoice[] = [];
  private readonly containers: TypeChoice[] = [];

  constructor(private readonly b: HeapGraphBuilder) {
    this.string = this.bucketed('System.String', CORELIB, 2, false, 'string');
    this.byteArray = this.bucketed('System.Byte[]', CORELIB, 1, false, null);
    this.int32Array = this.bucketed('System.Int32[]', CORELIB, 4, false, null);
    this.objectArray = this.bucketed('System.Object[]', CORELIB, 8, true, null, 12, 24);
    this.orderArray = this.bucketed('SyntheticApp.Order[]', APP, 8, true, null, 10, 16);
    this.entryArray = this.bucketed('System.Collections.Generic.Dictionary`2+Entry[System.String,SyntheticApp.Customer][]', COLLECTIONS, 24, true, null);
    this.linkedList = this.add('System.Collections.Generic.LinkedList`1[System.String]', COLLECTIONS);
    this.linkedListNode = this.add('System.Collections.Generic.LinkedListNode`1[System.String]', COLLECTIONS);
    this.chainNode = this.add('SyntheticApp.ChainNode', APP);
    this.dictionary = this.add('System.Collections.Generic.Dictionary`2[System.String,SyntheticApp.Customer]', CORELIB);
    this.customer = this.add('SyntheticApp.Customer', APP);
    const cls = (index: number, size: number, maxTree: number, maxRefs: number): TypeChoice => ({
      index, buckets: null, size, maxTree, maxRefs, array: false, elem: 0, holdsRefs: maxRefs > 0, leaf: null,
    });
    const customer = cls(this.customer, 56, 2, 5);
    const order = cls(this.add('SyntheticApp.Order', APP), 64, 3, 6);
    const orderLine = cls(this.add('SyntheticApp.OrderLine', APP), 40, 1, 3);
    const treeNode = cls(this.add('SyntheticApp.TreeNode', APP), 40, 5, 7);
    const list = cls(this.add('System.Collections.Generic.List`1[SyntheticApp.Order]', CORELIB), 32, 1, 1);
    const action = cls(this.add('System.Action', CORELIB), 64, 1, 2);
    const runtimeType = cls(this.add('System.RuntimeType', CORELIB), 40, 0, 0);
    this.pick(0.3, this.string);
    this.pick(0.05, this.byteArray);
    this.pick(0.03, this.int32Array);
    this.pick(0.06, this.objectArray);
    this.pick(0.04, this.orderArray);
    this.pick(0.04, list);
    this.pick(0.02, action);
    this.pick(0.01, runtimeType);
    this.pick(0.05, customer);
    this.pick(0.05, order);
    this.pick(0.05, orderLine);
    this.pick(0.05, treeNode);
    // The long tail: generated classes share the remaining weight, smaller ones more often.
    const each = (1 - this.weights[this.weights.length - 1]) / GENERATED_CLASSES;
    for (let k = 0; k < GENERATED_CLASSES; k++) {
      const refs = k % 8;
      this.pick(each, cls(this.add(this.className(k), APP), 24 + 8 * (k % 12), Math.min(refs, 3), refs));
    }
    this.containers = [this.objectArray, order, treeNode];
  }

  /** A class name from the generated long tail. */
  className(k: number): string {
    return `SyntheticApp.Generated.Module${k % 17}.Type${k % GENERATED_CLASSES}`;
  }

  /** A pseudo type (null module, size 0), e.g. "[static vars]". */
  pseudo(name: string): number {
    const t = this.add(name, null);
    this.firstSize[t] = 0;
    return t;
  }

  /** The type of a tree-unit object for a uniform `r`; `forced` when it must own a child. */
  pickTreeType(r: number, forced: boolean): TypeChoice {
    const w = this.weights;
    let lo = 0;
    let hi = w.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (w[mid] > r) hi = mid;
      else lo = mid + 1;
    }
    const c = this.choices[lo];
    return forced && c.maxTree === 0 ? this.containers[Math.floor(r * 997) % this.containers.length] : c;
  }

  /** The type index for an instance of `c` of `size` bytes (its dotnet-gcdump size bucket). */
  sized(c: TypeChoice, size: number): number {
    if (c.buckets === null || size <= 1000) return c.index;
    for (let k = 0; k < BUCKETS.length; k++) if (size > BUCKETS[k][0]) return c.buckets[k];
    return c.index;
  }

  arraySize(c: TypeChoice, elements: number): number {
    return (24 + c.elem * elements + 7) & ~7;
  }

  /** A string's size: mostly short (mean ~40 chars), one in 2,000 between 600 and 10,600 chars. */
  stringSize(r: number): number {
    const len = r > 0.9995 ? 600 + Math.floor((r - 0.9995) * 2e7) : Math.floor(r * r * r * 160);
    return (22 + 2 * len + 7) & ~7;
  }

  noteSize(type: number, size: number): void {
    if (this.firstSize[type] === -1) this.firstSize[type] = size;
  }

  /** Store each type's first size in the builder (the gcdump "type size"). */
  finish(): void {
    // builder type 0 is the implicit UNDEFINED; every other index is ours
    for (let t = 1; t < this.names.length; t++) this.b.setType(t, this.names[t], this.modules[t], this.firstSize[t]);
  }

  private add(name: string, module: string | null): number {
    const index = this.b.addType(name, module, -1);
    this.names[index] = name;
    this.modules[index] = module;
    this.firstSize[index] = -1;
    return index;
  }

  private bucketed(name: string, module: string, elem: number, holdsRefs: boolean, leaf: 'string' | null, maxTree = 0, maxRefs = 0): TypeChoice {
    const index = this.add(name, module);
    const buckets = BUCKETS.map(([, label]) => this.add(`${name} (Bytes > ${label})`, module));
    return { index, buckets, size: 0, maxTree, maxRefs, array: leaf === null, elem, holdsRefs, leaf };
  }

  private pick(weight: number, c: TypeChoice): void {
    const prev = this.weights.length ? this.weights[this.weights.length - 1] : 0;
    this.weights.push(prev + weight);
    this.choices.push(c);
  }
}
