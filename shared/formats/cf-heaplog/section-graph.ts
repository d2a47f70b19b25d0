import { graphFromColumns } from '../../graph/graph-from-columns.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import { NODE_UNDEFINED, NONE } from '../../graph/heap-graph.js';
import type { SnapshotMetadata } from '../../graph/metadata.js';
import type { ProblemCode } from '../../graph/problems.js';
import { PROBLEM_CAP } from '../../graph/problems.js';
import type { CancellationToken } from '../../util/cancellation.js';
import type { ProgressSink } from '../../util/progress.js';
import { NO_PROGRESS } from '../../util/progress.js';
import { GrowableUint32Array } from '../../util/growable-array.js';
import type { FieldCursor } from './field-cursor.js';
import { HEX_BAD, HEX_DIGIT, HEX_OK, hexId } from './field-cursor.js';
import { IdColumn, enterDefinedIds, resolveAgainstSortedIds, resolveIdsInPlace } from './id-resolution.js';
import { IdTable } from './id-table.js';
import { LineProblems } from './line-problems.js';
import { REC_OBJECT, REC_ROOT, REC_TYPE, preview } from './log-walker.js';
import { RootList, planRootNodes, rootObjectFlags } from './root-categories.js';

/**
 * One AppDomain section's `t`/`o`/`r` records, collected as columns while the log streams by and
 * turned into a HeapGraph at the end.
 *
 * Ordinals: `o` record r is node r, in file order (a duplicate id's later records are dropped);
 * ids referenced but never described follow, in order of first reference (line order); then the
 * root categories, and "[CF Roots]" last: it is the graph's root (`rootIndex`), so every node's
 * references already sit in CSR order as they are read and the reference column becomes the edge
 * column in place. Ids are resolved in bulk at the end (id-resolution.ts), not per line: that, and
 * writing the graph's columns directly instead of through HeapGraphBuilder, took the 5M-object
 * benchmark log's parse from 3.4–4.0 s to ~1.5 s.
 *
 * Types: a type id used before its `t` record gets a type index at once and its name when the
 * `t` arrives; one never described becomes "UNKNOWN 0x<id>" with an 'unresolved-type' problem
 * pointing at the line of first use.
 *
 * Data problems carry line numbers ("line 1234: …") and come out in line order; then unresolved
 * types, then dangling ids. A duplicate object id keeps the FIRST description and reports the
 * later line; the later record is dropped whole, references included.
 *
 * Memory while reading, per object: 20 bytes of columns that become the graph's (type, size,
 * first edge, id = address) + 4 (line) and 4 per reference (8 for 64-bit ids), with the columns'
 * doubling slack; at the end ~100 MB of id table per 5M objects and 8 bytes per id for sorting.
 */
export class SectionGraph {
  /** `o` records in file order: their ids (later the address column), types, sizes, first reference, line. */
  private readonly ids: IdColumn;
  private readonly nodeType: GrowableUint32Array;
  private readonly selfSize: GrowableUint32Array;
  private readonly edgeStart: GrowableUint32Array;
  private readonly line: GrowableUint32Array;
  /** Every record's referenced ids, in record order: resolved in place, they are the edge column. */
  private readonly refs: IdColumn;
  private readonly roots = new RootList();
  private readonly problems = new LineProblems();
  private readonly typeIds = new IdTable(1 << 10);
  /** The type id of the last `o` record and its index (-1: none yet; ids are ≥ 0). */
  private lastTypeLo = -1;
  private lastTypeHi = -1;
  private lastType = 0;
  /** Whether every `o` id so far was above the one before (then ids resolve by merge-join, no table). */
  private increasing = true;
  private prevLo = -1;
  private prevHi = -1;

  // Per type index (few: thousands). Index 0 is UNDEFINED (undescribed objects).
  private readonly typeName: string[] = ['UNDEFINED'];
  private readonly typeDescribed: boolean[] = [true];
  private readonly typeLine: number[] = [0];
  private readonly typeLo: number[] = [0];
  private readonly typeHi: number[] = [0];

  /** `expectedObjects` (from the file size) pre-sizes the columns. */
  constructor(expectedObjects: number) {
    const n = Math.max(1024, expectedObjects);
    this.ids = new IdColumn(n);
    this.nodeType = new GrowableUint32Array(n);
    this.selfSize = new GrowableUint32Array(n);
    this.edgeStart = new GrowableUint32Array(n);
    this.line = new GrowableUint32Array(n);
    this.refs = new IdColumn(2 * n);
  }

  /** `o` records read so far. */
  get objectCount(): number {
    return this.nodeType.length;
  }

  /** A problem found outside this class (the walker, the reader). */
  problem(code: ProblemCode, line: number, message: string): void {
    this.problems.add(code, line, message);
  }

  /** Problems counted before this section beyond the message cap. */
  problemsOverCap(code: ProblemCode, n: number, message: string): void {
    this.problems.addMany(code, n, message);
  }

  record(letter: number, c: FieldCursor, line: number): void {
    if (letter === REC_OBJECT) this.object(c, line);
    else if (letter === REC_ROOT) this.root(c, line);
    else if (letter === REC_TYPE) this.type(c, line);
    else this.problem('unknown-record', line, `unknown record "${preview(c.buf, c.start, c.end)}"`);
  }

  /** `o OBJECT-ID TYPE-ID SIZE [REFERENCED-ID ...]` */
  private object(c: FieldCursor, line: number): void {
    if (!c.hex()) return this.malformed(c, line, 'object record needs a hex object id');
    const idLo = c.lo;
    const idHi = c.hi;
    if (!c.hex()) return this.malformed(c, line, 'object record needs a hex type id');
    // Neighbouring objects often share a type: skip the type table then (a hash probe per line).
    let type = this.lastType;
    if (c.lo !== this.lastTypeLo || c.hi !== this.lastTypeHi) {
      type = this.lastType = this.typeIndex(c.lo, c.hi, line);
      this.lastTypeLo = c.lo;
      this.lastTypeHi = c.hi;
    }
    if (!c.hex()) return this.malformed(c, line, 'object record needs a hex size');
    let size = c.lo;
    if (c.hi !== 0) {
      this.problem('size-overflow', line, `object ${hexId(idLo, idHi)} has size ${hexId(c.lo, c.hi)}, past 32 bits; stored as 0`);
      size = 0;
    }
    const refs = this.refs;
    this.edgeStart.push(refs.length);
    let bad = false;
    for (;;) {
      const got = c.nextHex();
      if (got !== HEX_OK) {
        bad = got === HEX_BAD;
        break;
      }
      refs.push(c.lo, c.hi);
    }
    this.pushId(idLo, idHi);
    this.nodeType.push(type);
    this.selfSize.push(size);
    this.line.push(line);
    if (bad) this.malformed(c, line, 'reference is not a hex object id; the rest of the line was ignored');
  }

  /**
   * The walker's fast path (LogVisitor.objectLine): an `o` line that is exactly hex fields
   * separated by single spaces and ending in '\n' (ids of at most 13 digits;
   * type and size of at most 8), read in one loop. Anything else (tabs, '\r', wider numbers, a bad
   * character, a cut-off last line) returns -1 with nothing taken, and `object()` reads the line
   * and reports what is wrong.
   * Measured on the 5M-object benchmark log: ~0.4 s less than the line split + field cursor.
   */
  objectLine(buf: Uint8Array, start: number, end: number, line: number): number {
    const refs = this.refs;
    const mark = refs.length;
    let q = start;
    let field = 0;
    let idLo = 0;
    let idHi = 0;
    let typeId = 0;
    let size = 0;
    for (;;) {
      const first = q;
      // int32 halves, not a double: ~2× faster per digit; ≤ 13 digits keeps `hi` below 2^20
      let lo = 0;
      let hi = 0;
      while (q < end) {
        const d = HEX_DIGIT[buf[q]];
        if (d < 0) break;
        hi = (hi << 4) | (lo >>> 28);
        lo = (lo << 4) | d;
        q++;
      }
      const digits = q - first;
      if (digits === 0 || digits > (field === 1 || field === 2 ? 8 : 13) || q >= end) break;
      lo >>>= 0;
      if (field === 0) {
        idLo = lo;
        idHi = hi;
      } else if (field === 1) typeId = lo;
      else if (field === 2) size = lo;
      else refs.push(lo, hi);
      field++;
      const ch = buf[q++];
      if (ch === 10) {
        if (field < 3) break;
        this.edgeStart.push(mark);
        this.pushId(idLo, idHi);
        let type = this.lastType;
        if (typeId !== this.lastTypeLo || this.lastTypeHi !== 0) {
          type = this.lastType = this.typeIndex(typeId, 0, line);
          this.lastTypeLo = typeId;
          this.lastTypeHi = 0;
        }
        this.nodeType.push(type);
        this.selfSize.push(size);
        this.line.push(line);
        return q;
      }
      if (ch !== 32) break;
    }
    refs.lo.length = mark; // not a plain line: take nothing
    if (refs.hi) refs.hi.length = mark;
    return -1;
  }

  private pushId(lo: number, hi: number): void {
    if (this.increasing && (hi < this.prevHi || (hi === this.prevHi && lo <= this.prevLo))) this.increasing = false;
    this.prevLo = lo;
    this.prevHi = hi;
    this.ids.push(lo, hi);
  }

  /** `r OBJECT-ID ROOT-KIND FLAGS [CONTAINER-TYPE-ID]` */
  private root(c: FieldCursor, line: number): void {
    if (!c.hex()) return this.malformed(c, line, 'root record needs a hex object id');
    const lo = c.lo;
    const hi = c.hi;
    if (!c.hex()) return this.malformed(c, line, 'root record needs a hex root kind');
    let kind = c.hi === 0 && c.lo <= 0xff ? c.lo : 0xff;
    if (kind > 5) {
      this.problem('malformed-record', line, `unknown root kind ${hexId(c.lo, c.hi)}; listed under [other roots]`);
      kind = 0xff;
    }
    if (!c.hex()) return this.malformed(c, line, 'root record needs hex flags');
    const flags = c.hi === 0 ? c.lo & 0xff : 0;
    if (c.hi !== 0 || c.lo > 7) this.problem('malformed-record', line, `unknown root flags ${hexId(c.lo, c.hi)}; only bits 1, 2, 4 are read`);
    let container = NONE;
    if (!c.atEnd()) {
      if (!c.hex()) this.malformed(c, line, 'container type id is not hex; ignored');
      else if (kind === 4) container = this.typeIndex(c.lo, c.hi, line);
      if (!c.atEnd()) this.problem('malformed-record', line, 'extra fields after the root record were ignored');
    } else if (kind === 4) {
      this.problem('malformed-record', line, 'static root without its container type id; listed directly under [static vars]');
    }
    this.roots.push(lo, hi, kind, flags, container, line);
  }

  /** `t TYPE-ID NAME…` (the name is the rest of the line and may hold blanks). */
  private type(c: FieldCursor, line: number): void {
    if (!c.hex()) return this.malformed(c, line, 'type record needs a hex type id');
    const lo = c.lo;
    const hi = c.hi;
    const name = c.rest();
    const t = this.typeIndex(lo, hi, line);
    if (name === '') {
      this.problem('malformed-record', line, `type ${hexId(lo, hi)} has no name`);
      return;
    }
    if (this.typeDescribed[t]) {
      this.problem('duplicate-id', line, `type ${hexId(lo, hi)} is described again ("${name}"); the first name is kept`);
      return;
    }
    this.typeDescribed[t] = true;
    this.typeName[t] = name;
  }

  private malformed(c: FieldCursor, line: number, what: string): void {
    this.problem('malformed-record', line, `${what} ("${preview(c.buf, c.start, c.end)}")`);
  }

  private typeIndex(lo: number, hi: number, line: number): number {
    const fresh = this.typeName.length;
    const t = this.typeIds.getOrInsert(lo, hi, fresh);
    if (t === fresh) {
      this.typeName.push('');
      this.typeDescribed.push(false);
      this.typeLine.push(line);
      this.typeLo.push(lo);
      this.typeHi.push(hi);
    }
    return t;
  }

  /** Resolve every id, lay out the nodes and build the graph (the section must be complete). */
  finish(metadata: SnapshotMetadata, token: CancellationToken, progress: ProgressSink = NO_PROGRESS): HeapGraph {
    // ~0.5 s at 5M objects after the bytes are all read: a phase of its own (start and end only).
    const work = this.ids.length + this.refs.length + this.roots.length;
    progress('resolve', 0, work);
    const dangling = new IdColumn(1024);
    let next: number;
    if (this.increasing) {
      next = this.resolveSorted(dangling, token);
    } else {
      const table = new IdTable(Math.ceil((this.ids.length + 1024) / 0.7));
      const dup = enterDefinedIds(table, this.ids, this.ids.length, token);
      if (dup) this.dropDuplicates(dup, table);
      next = resolveIdsInPlace(table, this.refs, this.refs.length, this.ids.length, dangling, token);
      next = resolveIdsInPlace(table, this.roots.ids, this.roots.length, next, dangling, token);
    }
    const objects = this.ids.length;
    progress('resolve', work, work);
    const danglingLine = this.renumberDangling(objects, dangling, token);

    const typeSize = this.typeSizes(objects);
    for (let t = 1; t < this.typeName.length; t++) {
      if (this.typeDescribed[t]) continue;
      const id = hexId(this.typeLo[t], this.typeHi[t]);
      this.typeName[t] = `UNKNOWN ${id}`;
      this.problem('unresolved-type', this.typeLine[t], `type ${id} is used but never described; named "UNKNOWN ${id}"`);
    }
    for (let j = 0; j < dangling.length; j++) {
      if ((j & 0xffff) === 0) token.throwIfCancelled();
      const spell = this.problems.spells;
      const id = spell ? hexId(dangling.lo.raw[j], dangling.hiAt(j)) : '';
      this.problem('dangling-reference', danglingLine[j], spell ? `object ${id} is referenced but never described (kept as UNDEFINED, size 0)` : '');
    }

    // The pseudo-nodes, then every column grown to the full node count.
    const plan = planRootNodes(this.roots, this.roots.ids.lo.raw, next, (t) => this.typeName[t], token);
    const pseudo = plan.names.length;
    const n = next + pseudo;
    const modules: (string | null)[] = this.typeName.map(() => null);
    const pseudoType = new Map<string, number>();
    for (let v = objects; v < next; v++) {
      this.nodeType.push(0);
      this.selfSize.push(0);
    }
    for (let p = 0; p < pseudo; p++) {
      const name = plan.names[p];
      let t = pseudoType.get(name);
      if (t === undefined) {
        t = this.typeName.length;
        pseudoType.set(name, t);
        this.typeName.push(name);
        modules.push(null);
        typeSize.push(0);
      }
      this.nodeType.push(t);
      this.selfSize.push(0);
    }
    const refCount = this.refs.length;
    for (let v = objects; v < next; v++) this.edgeStart.push(refCount);
    for (let p = 0; p <= pseudo; p++) this.edgeStart.push(refCount + plan.firstChild[p]);
    const edges = this.refs.lo;
    edges.reserve(plan.children.length);
    edges.raw.set(plan.children, refCount);
    edges.length = refCount + plan.children.length;

    const nodeFlags = new Uint8Array(n);
    nodeFlags.fill(NODE_UNDEFINED, objects, next);
    nodeFlags.set(plan.flags, next);
    const rootNode = this.roots.ids.lo.raw;
    const rootFlags = this.roots.flags.raw;
    for (let i = 0; i < this.roots.length; i++) nodeFlags[rootNode[i]] |= rootObjectFlags(rootFlags[i]);

    return graphFromColumns(
      {
        nodeType: this.nodeType.finish(),
        selfSize: this.selfSize.finish(),
        firstEdge: this.edgeStart.finish(),
        edgeTarget: edges.finish(),
        addressWords: this.addressWords(n, dangling),
        nodeFlags,
        generation: null,
        rootIndex: n - 1,
        types: { names: this.typeName, modules, sizes: typeSize },
        metadata,
        problems: this.problems.merged(),
      },
      token,
    );
  }

  /**
   * Ids in increasing order (no duplicates possible): references and roots resolved together by
   * one radix sort + merge-join (the roots ride at the end of the reference column for the
   * duration, so an id only roots and references name gets one ordinal).
   */
  private resolveSorted(dangling: IdColumn, token: CancellationToken): number {
    const refs = this.refs;
    const m = refs.length;
    const k = this.roots.length;
    const rootLo = this.roots.ids.lo.raw;
    for (let i = 0; i < k; i++) refs.push(rootLo[i], this.roots.ids.hiAt(i));
    const next = resolveAgainstSortedIds(this.ids, this.ids.length, refs, m + k, this.ids.length, dangling, token);
    rootLo.set(refs.lo.raw.subarray(m, m + k));
    refs.lo.length = m;
    if (refs.hi) refs.hi.length = m;
    return next;
  }

  /** Drop records whose id an earlier record already described (rare): compact every record column. */
  private dropDuplicates(dup: Uint8Array, table: IdTable): void {
    const count = this.ids.length;
    const map = new Uint32Array(count);
    const idLo = this.ids.lo.raw;
    const idHi = this.ids.hi?.raw ?? null;
    const [type, size, start, line] = [this.nodeType.raw, this.selfSize.raw, this.edgeStart.raw, this.line.raw];
    const refLo = this.refs.lo.raw;
    const refHi = this.refs.hi?.raw ?? null;
    const refTotal = this.refs.length;
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
    for (const g of [this.ids.lo, this.nodeType, this.selfSize, this.edgeStart, this.line]) g.length = w;
    if (this.ids.hi) this.ids.hi.length = w;
    this.refs.lo.length = e;
    if (this.refs.hi) this.refs.hi.length = e;
    table.remapValues(map);
    this.problems.insertInLineOrder('duplicate-id', late, unspelled);
  }

  /**
   * Give ids that were referenced but never described the ordinals objects … objects + d - 1 in
   * order of first reference (line order: records and roots interleaved), instead of the bucket
   * order they were found in, and return each one's line of first reference. Two passes over the
   * references, only when there is any such id.
   */
  private renumberDangling(objects: number, dangling: IdColumn, token: CancellationToken): Uint32Array {
    const d = dangling.length;
    const firstLine = new Uint32Array(d);
    if (d === 0) return firstLine;
    const rank = new Uint32Array(d).fill(NONE);
    let assigned = 0;
    const edges = this.refs.lo.raw;
    const rootNode = this.roots.ids.lo.raw;
    const rootLine = this.roots.line.raw;
    const rootCount = this.roots.length;
    const [start, line] = [this.edgeStart.raw, this.line.raw];
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
      const end = r + 1 < objects ? start[r + 1] : this.refs.length;
      for (let k = start[r]; k < end; k++) if (edges[k] >= objects) visit(edges[k], ln);
    }
    while (ri < rootCount) visit(rootNode[ri], rootLine[ri++]);

    for (let k = 0, m = this.refs.length; k < m; k++) if (edges[k] >= objects) edges[k] = objects + rank[edges[k] - objects];
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
  private typeSizes(objects: number): number[] {
    const sizes = new Array<number>(this.typeName.length).fill(-1);
    sizes[0] = 0;
    const [type, size] = [this.nodeType.raw, this.selfSize.raw];
    for (let r = 0; r < objects; r++) if (sizes[type[r]] < 0) sizes[type[r]] = size[r];
    return sizes;
  }

  /** The address column: each object's id (the log has no addresses), dangling ids too; 0 for pseudo-nodes. */
  private addressWords(n: number, dangling: IdColumn): Uint32Array {
    const words = new Uint32Array(2 * n);
    const objects = this.ids.length;
    const copy = (ids: IdColumn, count: number, at: number): void => {
      const lo = ids.lo.raw;
      const hi = ids.hi?.raw ?? null;
      for (let i = 0; i < count; i++) {
        words[2 * (at + i)] = lo[i];
        if (hi) words[2 * (at + i) + 1] = hi[i];
      }
    };
    copy(this.ids, objects, 0);
    copy(dangling, dangling.length, objects);
    return words;
  }
}
