import { NODE_PINNED, NODE_PSEUDO, NODE_WEAK_EDGES, NONE } from '../../graph/heap-graph.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { GrowableUint32Array, GrowableUint8Array } from '../../util/growable-array.js';
import { IdColumn } from './id-resolution.js';

/**
 * The pseudo-nodes above a CF heap log's objects, built from its `r` records:
 *
 *   [CF Roots]
 *   ├─ [CLR internal roots] (kind 0)   ├─ [local vars] (1)   ├─ [finalizer queue] (2)
 *   ├─ [GC handles] (3)                ├─ [CF GC roots] (5)  ├─ [other roots] (unknown kind)
 *   ├─ [static vars] (4) ─ [static vars of <ContainerType>] ─ object
 *   ├─ [pinned <kind>] e.g. [pinned GC handles]: roots with flag 1 (the object gets NODE_PINNED)
 *   └─ [weak GC handles]: roots with flag 2, NODE_WEAK_EDGES, so they show but keep nothing alive
 *
 * Pinned roots get sibling categories rather than a suffix on each object so the root view shows
 * "how much is pinned, by what" at a glance and the kind is still visible. A weak root that is also
 * flagged pinned is treated as weak only (a weak handle cannot pin). Flag 4 (interior/unsafe
 * pointer) changes nothing in the graph: such roots stay in their kind's category.
 *
 * A static root without a container type id hangs directly below its [static vars] category.
 * Counts are root records, so an object rooted twice appears twice (as dotnet-gcdump does).
 * Cost: O(roots) time with a counting sort; a Map over distinct container types (few).
 */
export const ROOT_NODE_NAME = '[CF Roots]';
export const KIND_CATEGORY_NAMES = ['[CLR internal roots]', '[local vars]', '[finalizer queue]', '[GC handles]', '[static vars]', '[CF GC roots]'] as const;
export const OTHER_ROOTS_NAME = '[other roots]';
export const WEAK_ROOTS_NAME = '[weak GC handles]';
export const ROOT_FLAG_PINNED = 1;
export const ROOT_FLAG_WEAK = 2;
export const ROOT_FLAG_INTERIOR = 4;
export const ROOT_KIND_STATIC = 4;
/** Root kind value for kinds the format does not define (> 5). */
export const ROOT_KIND_OTHER = 0xff;

/** "[pinned GC handles]" for "[GC handles]". */
export function pinnedCategoryName(category: string): string {
  return `[pinned ${category.slice(1)}`;
}

export function staticHolderName(containerTypeName: string): string {
  return `[static vars of ${containerTypeName}]`;
}

/** Top-level category slots: kinds 0–5, other, pinned 0–5, pinned other, weak. */
const PLAIN_OTHER = 6;
const PINNED_BASE = 7;
const WEAK_SLOT = 14;
const TOP_SLOTS = 15;

function topName(slot: number): string {
  if (slot === WEAK_SLOT) return WEAK_ROOTS_NAME;
  const pinned = slot >= PINNED_BASE;
  const base = pinned ? slot - PINNED_BASE : slot;
  const name = base === PLAIN_OTHER ? OTHER_ROOTS_NAME : KIND_CATEGORY_NAMES[base];
  return pinned ? pinnedCategoryName(name) : name;
}

/** Root records as columns: object id (an ordinal once resolved), kind, flags, container type index (NONE when absent), line. */
export class RootList {
  readonly ids = new IdColumn(256);
  readonly kind = new GrowableUint8Array(256);
  readonly flags = new GrowableUint8Array(256);
  readonly container = new GrowableUint32Array(256);
  readonly line = new GrowableUint32Array(256);

  get length(): number {
    return this.kind.length;
  }

  push(lo: number, hi: number, kind: number, flags: number, container: number, line: number): void {
    this.ids.push(lo, hi);
    this.kind.push(kind);
    this.flags.push(flags);
    this.container.push(container);
    this.line.push(line);
  }
}

/** NODE_* flags a root record gives its object: pinned, unless the handle is weak (a weak handle cannot pin). */
export function rootObjectFlags(flags: number): number {
  return (flags & ROOT_FLAG_PINNED) !== 0 && (flags & ROOT_FLAG_WEAK) === 0 ? NODE_PINNED : 0;
}

/**
 * The pseudo-nodes, ordinals `first`, `first + 1`, …: the non-empty categories in a fixed order,
 * then the static holders, then "[CF Roots]" last (the graph's root). `children` is their CSR
 * (row i = pseudo-node first + i); `flags` NODE_PSEUDO, plus NODE_WEAK_EDGES for the weak category.
 */
export interface RootNodes {
  names: string[];
  flags: Uint8Array;
  firstChild: Uint32Array;
  children: Uint32Array;
}

/**
 * Plan the pseudo-nodes for resolved roots (`node[i]` is root i's object ordinal).
 * `typeName` names container types.
 */
export function planRootNodes(roots: RootList, node: Uint32Array, first: number, typeName: (t: number) => string, token: CancellationToken): RootNodes {
  const n = roots.length;
  const rootKind = roots.kind.raw;
  const rootFlags = roots.flags.raw;
  const rootContainer = roots.container.raw;

  // Slot of each root: a top-level category, or a static holder (TOP_SLOTS + holder index).
  const slotOf = new Uint32Array(n);
  const holderByKey = new Map<number, number>();
  const holderType: number[] = [];
  const holderParent: number[] = [];
  const count: number[] = new Array<number>(TOP_SLOTS).fill(0);
  for (let i = 0; i < n; i++) {
    if ((i & 0xffff) === 0) token.throwIfCancelled();
    const flags = rootFlags[i];
    const kind = rootKind[i];
    let slot: number;
    if (flags & ROOT_FLAG_WEAK) {
      slot = WEAK_SLOT;
    } else {
      const pinned = (flags & ROOT_FLAG_PINNED) !== 0;
      const top = (kind <= 5 ? kind : PLAIN_OTHER) + (pinned ? PINNED_BASE : 0);
      slot = top;
      const container = rootContainer[i];
      if (kind === ROOT_KIND_STATIC && container !== NONE) {
        const key = container * 2 + (pinned ? 1 : 0);
        let h = holderByKey.get(key);
        if (h === undefined) {
          h = holderType.length;
          holderByKey.set(key, h);
          holderType.push(container);
          holderParent.push(top);
          count.push(0);
          count[top]++;
        }
        slot = TOP_SLOTS + h;
      }
    }
    slotOf[i] = slot;
    count[slot]++;
  }

  // Ordinals: one per non-empty slot, top-level slots first (fixed order), then holders, then the root.
  const slots = count.length;
  const ordinal = new Uint32Array(slots).fill(NONE);
  const names: string[] = [];
  const flags: number[] = [];
  let next = first;
  for (let s = 0; s < slots; s++) {
    if (count[s] === 0) continue;
    ordinal[s] = next++;
    names.push(s < TOP_SLOTS ? topName(s) : staticHolderName(typeName(holderType[s - TOP_SLOTS])));
    flags.push(NODE_PSEUDO | (s === WEAK_SLOT ? NODE_WEAK_EDGES : 0));
  }
  const tops: number[] = [];
  for (let s = 0; s < TOP_SLOTS; s++) if (ordinal[s] !== NONE) tops.push(ordinal[s]);
  names.push(ROOT_NODE_NAME);
  flags.push(NODE_PSEUDO);

  // Children by counting sort: holders first under their parent (first-seen order), then roots in file order; the root's last.
  const pseudo = names.length;
  const firstChild = new Uint32Array(pseudo + 1);
  let row = 0;
  for (let s = 0; s < slots; s++) {
    if (count[s] === 0) continue;
    firstChild[row + 1] = firstChild[row] + count[s];
    row++;
  }
  firstChild[pseudo] = firstChild[pseudo - 1] + tops.length;
  const fill = new Uint32Array(slots);
  for (let s = 0; s < slots; s++) if (ordinal[s] !== NONE) fill[s] = firstChild[ordinal[s] - first];
  const children = new Uint32Array(firstChild[pseudo]);
  for (let h = 0; h < holderType.length; h++) children[fill[holderParent[h]]++] = ordinal[TOP_SLOTS + h];
  for (let i = 0; i < n; i++) children[fill[slotOf[i]]++] = node[i];
  children.set(tops, firstChild[pseudo - 1]);
  return { names, flags: Uint8Array.from(flags), firstChild, children };
}
