import type { HeapGraph } from '../graph/heap-graph.js';
import { GEN_FROZEN, NODE_UNDEFINED, NONE } from '../graph/heap-graph.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import { GrowableFloat64Array, GrowableInt32Array } from '../util/growable-array.js';
import type { ShortestPathTree } from './paths-to-roots.js';

/**
 * "Why are my 4 LeakyPage objects alive?": the shortest paths of every instance of a type, merged.
 *
 * Each reachable instance contributes the sequence of type names along its BFS-predecessor chain,
 * from the instance up to the root. The sequences are merged into a trie keyed by type name at each
 * level: level 0 is the type itself, level 1 the types of the objects that hold an instance, and so
 * on up to the root. A branch's count is the number of instances whose path passes through it, so
 * counts shrink (or stay) from a parent to its children and the children of a branch sum to its
 * count minus the paths that end there (at the root) or were cut off by the depth bound.
 *
 * Keys are type NAMES (two type indices with one name share a branch), through a name → id table
 * built once over the types (few). The trie lives in typed arrays with an open-addressing child
 * index, so no Map per node.
 *
 * Cost: O(I · min(depth, maxDepth)) steps for I instances; trie nodes ≤ that, capped at maxTrieNodes
 * (default 1,000,000, ~40 MB); past the cap a walk that needs a new branch stops where it is and
 * is counted as `cutOff` (the result says `incomplete`).
 */

export interface TypePathOptions {
  /** Levels above the instance (default 32). */
  maxDepth?: number;
  /** Children listed per branch, the rest summed as omitted (default 10). */
  maxBreadth?: number;
  maxTrieNodes?: number;
  token?: CancellationToken;
}

export interface TypePathBranch {
  typeName: string;
  /** Instances whose path passes through this branch. */
  count: number;
  /** Instances whose path reaches the root at this branch (this branch is the root's type). */
  endsHere: number;
  /** Instances whose path was not followed further (depth bound or trie cap). */
  cutOff: number;
  /** Listed children, count descending then name. */
  children: TypePathBranch[];
  /** Children not listed (breadth bound), and the instances they carry. */
  omittedBranches: number;
  omittedCount: number;
}

export interface TypePathTree {
  /** Instances of the matched types (heap objects and pseudo nodes, undefined slots excluded). */
  instances: number;
  reachable: number;
  unreachable: number;
  /** The frozen (non-GC heap) instances among the unreachable ones: never collected, so not garbage. */
  unreachableFrozen: number;
  /** One branch per distinct instance type name (usually one). */
  roots: TypePathBranch[];
  /** The trie cap was hit: some counts end early (see cutOff). */
  incomplete: boolean;
}

/** Merged shortest-path tree of every node whose type index is flagged in `typeMask` (length = type count). */
export function typePathTree(g: HeapGraph, spt: ShortestPathTree, typeMask: Uint8Array, opts: TypePathOptions = {}): TypePathTree {
  const maxDepth = opts.maxDepth ?? 32;
  const maxBreadth = opts.maxBreadth ?? 10;
  const maxTrie = opts.maxTrieNodes ?? 1_000_000;
  const token = opts.token ?? NEVER_CANCELLED;
  const { nodeType, nodeFlags, generation } = g;
  const { pred, dist } = spt;
  const root = g.rootIndex;

  // Type index → name id, so equal names share branches.
  const nameIds = new Map<string, number>();
  const nameOf: string[] = [];
  const typeName = new Uint32Array(g.types.count);
  for (let t = 0; t < g.types.count; t++) {
    const name = g.types.names[t];
    let id = nameIds.get(name);
    if (id === undefined) {
      id = nameOf.length;
      nameOf.push(name);
      nameIds.set(name, id);
    }
    typeName[t] = id;
  }

  const trie = new Trie();
  let instances = 0;
  let reachable = 0;
  let unreachableFrozen = 0;
  let incomplete = false;
  for (let n = 0; n < g.nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    if (!typeMask[nodeType[n]] || nodeFlags[n] & NODE_UNDEFINED) continue;
    instances++;
    if (dist[n] === NONE) {
      if (generation[n] === GEN_FROZEN) unreachableFrozen++;
      continue;
    }
    reachable++;
    let node = trie.child(-1, typeName[nodeType[n]], true);
    trie.count.raw[node]++;
    let cur = n;
    let depth = 0;
    while (cur !== root) {
      if (depth === maxDepth) {
        trie.cutOff.raw[node]++;
        break;
      }
      cur = pred[cur];
      depth++;
      const next = trie.child(node, typeName[nodeType[cur]], trie.size < maxTrie);
      if (next < 0) {
        incomplete = true;
        trie.cutOff.raw[node]++;
        break;
      }
      node = next;
      trie.count.raw[node]++;
    }
    if (cur === root) trie.endsHere.raw[node]++;
  }
  return { instances, reachable, unreachable: instances - reachable, unreachableFrozen, roots: trie.toBranches(nameOf, maxBreadth), incomplete };
}

/** Mask of type indices whose name is exactly `name`. */
export function typeMaskByName(g: HeapGraph, name: string): Uint8Array {
  const mask = new Uint8Array(g.types.count);
  for (let t = 0; t < g.types.count; t++) if (g.types.names[t] === name) mask[t] = 1;
  return mask;
}

/** Trie of name ids in parallel typed arrays; children found through an open-addressing table keyed (parent, name). */
class Trie {
  readonly name = new GrowableInt32Array(1024);
  readonly parent = new GrowableInt32Array(1024);
  readonly count = new GrowableFloat64Array(1024);
  readonly endsHere = new GrowableFloat64Array(1024);
  readonly cutOff = new GrowableFloat64Array(1024);
  size = 0;
  private slots = new Int32Array(2048).fill(-1);

  /** The child of `parent` (−1 = top level) named `name`, created when allowed; −1 when absent and not created. */
  child(parent: number, name: number, create: boolean): number {
    let mask = this.slots.length - 1;
    let i = hash(parent, name) & mask;
    for (;;) {
      const s = this.slots[i];
      if (s < 0) break;
      if (this.parent.raw[s] === parent && this.name.raw[s] === name) return s;
      i = (i + 1) & mask;
    }
    if (!create) return -1;
    const s = this.size++;
    this.name.set(s, name);
    this.parent.set(s, parent);
    this.count.set(s, 0);
    this.endsHere.set(s, 0);
    this.cutOff.set(s, 0);
    if (this.size * 2 > this.slots.length) {
      this.rehash();
      mask = this.slots.length - 1;
      i = hash(parent, name) & mask;
      while (this.slots[i] >= 0) i = (i + 1) & mask;
    }
    this.slots[i] = s;
    return s;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(-1);
    const mask = slots.length - 1;
    for (let s = 0; s < this.size - 1; s++) {
      let i = hash(this.parent.raw[s], this.name.raw[s]) & mask;
      while (slots[i] >= 0) i = (i + 1) & mask;
      slots[i] = s;
    }
    this.slots = slots;
  }

  /** Nested branches, children sorted and cut at `maxBreadth`; iterative (a stack of pending parents). */
  toBranches(nameOf: readonly string[], maxBreadth: number): TypePathBranch[] {
    const kids: number[][] = Array.from({ length: this.size + 1 }, () => []);
    for (let s = 0; s < this.size; s++) kids[this.parent.raw[s] + 1].push(s);
    const make = (s: number): TypePathBranch => ({
      typeName: nameOf[this.name.raw[s]],
      count: this.count.raw[s],
      endsHere: this.endsHere.raw[s],
      cutOff: this.cutOff.raw[s],
      children: [],
      omittedBranches: 0,
      omittedCount: 0,
    });
    const top: TypePathBranch[] = [];
    const stack: { list: TypePathBranch[]; holder: TypePathBranch | null; id: number }[] = [{ list: top, holder: null, id: -1 }];
    while (stack.length > 0) {
      const { list, holder, id } = stack.pop()!;
      const ch = kids[id + 1].sort((a, b) => this.count.raw[b] - this.count.raw[a] || cmp(nameOf[this.name.raw[a]], nameOf[this.name.raw[b]]));
      const shown = id < 0 ? ch : ch.slice(0, maxBreadth);
      if (holder) {
        holder.omittedBranches = ch.length - shown.length;
        for (let k = shown.length; k < ch.length; k++) holder.omittedCount += this.count.raw[ch[k]];
      }
      for (const s of shown) {
        const b = make(s);
        list.push(b);
        stack.push({ list: b.children, holder: b, id: s });
      }
    }
    return top;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function hash(parent: number, name: number): number {
  return (Math.imul(parent + 1, 0x9e3779b1) ^ Math.imul(name, 0x85ebca77)) >>> 0;
}
