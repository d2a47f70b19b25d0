import { graphFromColumns } from '../../graph/graph-from-columns.js';
import type { HeapGraph } from '../../graph/heap-graph.js';
import { NODE_UNDEFINED, NONE } from '../../graph/heap-graph.js';
import type { SnapshotMetadata } from '../../graph/metadata.js';
import type { ProblemCode } from '../../graph/problems.js';
import type { CancellationToken } from '../../util/cancellation.js';
import type { ProgressSink } from '../../util/progress.js';
import { NO_PROGRESS } from '../../util/progress.js';
import { GrowableUint32Array } from '../../util/growable-array.js';
import { MAX_NAME_CHARS, NAME_CUT_MARK } from '../name-cap.js';
import type { FieldCursor } from './field-cursor.js';
import { HEX_BAD, HEX_DIGIT, HEX_OK, hexId } from './field-cursor.js';
import { IdColumn, enterDefinedIds, resolveIdsInPlace } from './id-resolution.js';
import { resolveAgainstSortedIds } from './sorted-id-resolution.js';
import { IdTable } from './id-table.js';
import { LineProblems } from './line-problems.js';
import { REC_OBJECT, REC_ROOT, REC_TYPE, preview } from './log-walker.js';
import { addressWords, dropDuplicates, renumberDangling, typeSizes, type SectionColumns } from './section-layout.js';
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
export class SectionGraph implements SectionColumns {
  /** `o` records in file order: their ids (later the address column), types, sizes, first reference, line. */
  readonly ids: IdColumn;
  readonly nodeType: GrowableUint32Array;
  readonly selfSize: GrowableUint32Array;
  readonly edgeStart: GrowableUint32Array;
  readonly line: GrowableUint32Array;
  /** Every record's referenced ids, in record order: resolved in place, they are the edge column. */
  readonly refs: IdColumn;
  readonly roots = new RootList();
  // Fields below are read and written by section-fragment.ts as well (a fragment joins a section).
  readonly problems = new LineProblems();
  private readonly typeIds = new IdTable(1 << 10);
  /** The type id of the last `o` record and its index (-1: none yet; ids are ≥ 0). */
  private lastTypeLo = -1;
  private lastTypeHi = -1;
  private lastType = 0;
  /** Whether every `o` id so far was above the one before (then ids resolve by merge-join, no table). */
  increasing = true;
  prevLo = -1;
  prevHi = -1;

  // Per type index (few: thousands). Index 0 is UNDEFINED (undescribed objects).
  readonly typeName: string[] = ['UNDEFINED'];
  readonly typeDescribed: boolean[] = [true];
  /** Line of first use (for 'unresolved-type'), and of the `t` record that named the type (0: none yet). */
  readonly typeLine: number[] = [0];
  readonly typeNamedAt: number[] = [0];
  readonly typeLo: number[] = [0];
  readonly typeHi: number[] = [0];

  /**
   * `expectedObjects` (from the file size) pre-sizes the columns. `sharedMemory`: the columns that
   * become the graph's are SharedArrayBuffers from the start (no copy at `finish`).
   */
  constructor(expectedObjects: number, sharedMemory = false) {
    const n = Math.max(1024, expectedObjects);
    this.ids = new IdColumn(n);
    this.nodeType = new GrowableUint32Array(n, sharedMemory);
    this.selfSize = new GrowableUint32Array(n, sharedMemory);
    this.edgeStart = new GrowableUint32Array(n, sharedMemory);
    this.line = new GrowableUint32Array(n);
    this.refs = new IdColumn(2 * n, sharedMemory);
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
    const type = this.objectType(c.lo, c.hi, line);
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
        this.nodeType.push(this.objectType(typeId, 0, line));
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
    const cut = { count: 0 };
    const name = c.rest(cut);
    if (cut.count > 0) this.problem('malformed-record', line, `type ${hexId(lo, hi)}: its name of ${c.end - c.pos} bytes was cut to ${MAX_NAME_CHARS} characters and ends in "${NAME_CUT_MARK}"`);
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
    this.typeNamedAt[t] = line;
  }

  private malformed(c: FieldCursor, line: number, what: string): void {
    this.problem('malformed-record', line, `${what} ("${preview(c.buf, c.start, c.end)}")`);
  }

  /** An `o` record's type index. Neighbouring objects often share a type: the table is then skipped (a hash probe per line). */
  private objectType(lo: number, hi: number, line: number): number {
    if (lo !== this.lastTypeLo || hi !== this.lastTypeHi) {
      this.lastType = this.typeIndex(lo, hi, line);
      this.lastTypeLo = lo;
      this.lastTypeHi = hi;
    }
    return this.lastType;
  }

  typeIndex(lo: number, hi: number, line: number): number {
    const fresh = this.typeName.length;
    const t = this.typeIds.getOrInsert(lo, hi, fresh);
    if (t === fresh) {
      this.typeName.push('');
      this.typeDescribed.push(false);
      this.typeLine.push(line);
      this.typeNamedAt.push(0);
      this.typeLo.push(lo);
      this.typeHi.push(hi);
    }
    return t;
  }

  /** Resolve every id, lay out the nodes and build the graph (the section must be complete). */
  /** `shared`: the graph's columns in SharedArrayBuffers (ReadOptions.sharedMemory). */
  finish(metadata: SnapshotMetadata, token: CancellationToken, progress: ProgressSink = NO_PROGRESS, shared = false): HeapGraph {
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
      if (dup) {
        const { late, unspelled } = dropDuplicates(this, dup, table);
        this.problems.insertInLineOrder('duplicate-id', late, unspelled);
      }
      next = resolveIdsInPlace(table, this.refs, this.refs.length, this.ids.length, dangling, token);
      next = resolveIdsInPlace(table, this.roots.ids, this.roots.length, next, dangling, token);
    }
    const objects = this.ids.length;
    progress('resolve', work, work);
    const danglingLine = renumberDangling(this, objects, dangling, token);

    const typeSize = typeSizes(this, this.typeName.length, objects);
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

    const nodeFlags = shared ? new Uint8Array(new SharedArrayBuffer(n)) : new Uint8Array(n);
    nodeFlags.fill(NODE_UNDEFINED, objects, next);
    nodeFlags.set(plan.flags, next);
    const rootNode = this.roots.ids.lo.raw;
    const rootFlags = this.roots.flags.raw;
    for (let i = 0; i < this.roots.length; i++) nodeFlags[rootNode[i]] |= rootObjectFlags(rootFlags[i]);

    return graphFromColumns(
      {
        nodeType: this.nodeType.finish(shared),
        selfSize: this.selfSize.finish(shared),
        firstEdge: this.edgeStart.finish(shared),
        edgeTarget: edges.finish(shared),
        addressWords: addressWords(this, n, dangling, shared),
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
}
