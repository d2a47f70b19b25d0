import { NONE } from '../../graph/heap-graph.js';
import { PROBLEM_CAP } from '../../graph/problems.js';
import type { CancellationToken } from '../../util/cancellation.js';
import type { GrowableUint32Array } from '../../util/growable-array.js';
import { hexId } from './field-cursor.js';
import type { IdColumn } from './id-resolution.js';
import type { IdTable } from './id-table.js';
import type { RootList } from './root-categories.js';

/**
 * The steps of turning a CF log section's columns into graph columns that are not per line:
 * dropping duplicate records, ordering never-described ids by first reference, the first size
 * per type and the address column. Split from section-graph.ts (which reads the lines) to keep
 * each file about one job; all of them run once, at the end of the section.
 */

/** What section-graph.ts collects per `o` record (index = record) and for the whole section. */
export interface SectionColumns {
  readonly ids: IdColumn;
  readonly nodeType: GrowableUint32Array;
  readonly selfSize: GrowableUint32Array;
  readonly edgeStart: GrowableUint32Array;
  readonly line: GrowableUint32Array;
  readonly refs: IdColumn;
  readonly roots: RootList;
}

/** Drop records whose id an earlier record already described (rare): compact every record column. */
export function dropDuplicates(c: SectionColumns, dup: Uint8Array, table: IdTable): { late: { line: number; message: string }[]; unspelled: number } {
  const count = c.ids.length;
  const map = new Uint32Array(count);
  const idLo = c.ids.lo.raw;
  const idHi = c.ids.hi?.raw ?? null;
  const [type, size, start, line] = [c.nodeType.raw, c.selfSize.raw, c.edgeStart.raw, c.line.raw];
  const refLo = c.refs.lo.raw;
  const refHi = c.refs.hi?.raw ?? null;
  const refTotal = c.refs.length;
  const late: { line: number; message: string }[] = [];
  let unspelled = 0;
  let w = 0;
  let e = 0;
  for (let r = 0; r < count; r++) {
    const end = r + 1 < count ? start[r + 1] : refTotal;
    if (dup[r] !== 0) {
      if (late.length < PROBLEM_CAP) late.push({ line: line[r], message: `object ${hexId(idLo[r], idHi ? idHi[r] : 0)} is described again; the first description is kept` });
      else unspelled++;
      continue;
    }
    const from = start[r];
    map[r] = w;
    idLo[w] = idLo[r];
    if (idHi) idHi[w] = idHi[r];
    type[w] = type[r];
    size[w] = size[r];
    line[w] = line[r];
    start[w] = e;
    for (let k = from; k < end; k++, e++) {
      refLo[e] = refLo[k];
      if (refHi) refHi[e] = refHi[k];
    }
    w++;
  }
  for (const g of [c.ids.lo, c.nodeType, c.selfSize, c.edgeStart, c.line]) g.length = w;
  if (c.ids.hi) c.ids.hi.length = w;
  c.refs.lo.length = e;
  if (c.refs.hi) c.refs.hi.length = e;
  table.remapValues(map);
  return { late, unspelled };
}

/**
 * Give ids that were referenced but never described the ordinals objects … objects + d - 1 in
 * order of first reference (line order: records and roots interleaved), instead of the bucket
 * order they were found in, and return each one's line of first reference. Two passes over the
 * references, only when there is any such id.
 */
export function renumberDangling(c: SectionColumns, objects: number, dangling: IdColumn, token: CancellationToken): Uint32Array {
  const d = dangling.length;
  const firstLine = new Uint32Array(d);
  if (d === 0) return firstLine;
  const rank = new Uint32Array(d).fill(NONE);
  let assigned = 0;
  const edges = c.refs.lo.raw;
  const rootNode = c.roots.ids.lo.raw;
  const rootLine = c.roots.line.raw;
  const rootCount = c.roots.length;
  const [start, line] = [c.edgeStart.raw, c.line.raw];
  const visit = (v: number, ln: number): void => {
    if (v < objects || rank[v - objects] !== NONE) return;
    rank[v - objects] = assigned;
    firstLine[assigned++] = ln;
  };
  let ri = 0;
  for (let r = 0; r < objects; r++) {
    if ((r & 0xffff) === 0) token.throwIfCancelled();
    const ln = line[r];
    while (ri < rootCount && rootLine[ri] < ln) visit(rootNode[ri], rootLine[ri++]);
    const end = r + 1 < objects ? start[r + 1] : c.refs.length;
    for (let k = start[r]; k < end; k++) if (edges[k] >= objects) visit(edges[k], ln);
  }
  while (ri < rootCount) visit(rootNode[ri], rootLine[ri++]);

  for (let k = 0, m = c.refs.length; k < m; k++) if (edges[k] >= objects) edges[k] = objects + rank[edges[k] - objects];
  for (let i = 0; i < rootCount; i++) if (rootNode[i] >= objects) rootNode[i] = objects + rank[rootNode[i] - objects];
  const lo = dangling.lo.raw.slice(0, d);
  const hi = dangling.hi ? dangling.hi.raw.slice(0, d) : null;
  for (let j = 0; j < d; j++) {
    dangling.lo.raw[rank[j]] = lo[j];
    if (hi) dangling.hi!.raw[rank[j]] = hi[j];
  }
  return firstLine;
}

/** Per type, the size of its first object in the file (.gcdump keeps it; -1 when none). */
export function typeSizes(c: SectionColumns, typeCount: number, objects: number): number[] {
  const sizes = new Array<number>(typeCount).fill(-1);
  sizes[0] = 0;
  const [type, size] = [c.nodeType.raw, c.selfSize.raw];
  for (let r = 0; r < objects; r++) if (sizes[type[r]] < 0) sizes[type[r]] = size[r];
  return sizes;
}

/** The address column: each object's id (the log has no addresses), dangling ids too; 0 for pseudo-nodes. */
export function addressWords(c: SectionColumns, n: number, dangling: IdColumn, shared = false): Uint32Array {
  const words = shared ? new Uint32Array(new SharedArrayBuffer(8 * n)) : new Uint32Array(2 * n);
  const objects = c.ids.length;
  const copy = (ids: IdColumn, count: number, at: number): void => {
    const lo = ids.lo.raw;
    const hi = ids.hi?.raw ?? null;
    for (let i = 0; i < count; i++) {
      words[2 * (at + i)] = lo[i];
      if (hi) words[2 * (at + i) + 1] = hi[i];
    }
  };
  copy(c.ids, objects, 0);
  copy(dangling, dangling.length, objects);
  return words;
}
