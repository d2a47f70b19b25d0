import { HeapGraphBuilder } from '../../graph/heap-graph-builder.js';
import { NONE } from '../../graph/heap-graph.js';
import type { ProblemCode } from '../../graph/problems.js';
import { PROBLEM_CAP } from '../../graph/problems.js';
import type { CancellationToken } from '../../util/cancellation.js';
import type { FieldCursor } from './field-cursor.js';
import { HEX_BAD, HEX_OK, hexId } from './field-cursor.js';
import { IdTable } from './id-table.js';
import { REC_OBJECT, REC_ROOT, REC_TYPE, preview } from './log-walker.js';
import { ObjectBatch } from './object-batch.js';
import { attachRoots, RootList } from './root-categories.js';

/**
 * Turns one AppDomain section's `t`/`o`/`r` records into HeapGraphBuilder calls.
 *
 * Ordinals: node 0 is the synthetic root "[CF Roots]"; every object id gets the next ordinal the
 * first time it is seen, whether defined (`o`) or only referenced (by an `o` or `r`), through an
 * IdTable (no Map entry per object). Object records are resolved in batches (object-batch.ts),
 * which creates builder nodes once per batch; roots, types and problems first resolve what is
 * pending, so ordinals and problem order never depend on batch boundaries. Root categories are
 * created last, after every object (see root-categories.ts).
 *
 * Types: a type id used before its `t` record gets a placeholder type index at once and its name
 * when the `t` arrives; one never described becomes "UNKNOWN 0x<id>" with an 'unresolved-type'
 * problem pointing at the line of first use.
 *
 * Data problems carry line numbers ("line 1234: …"); a duplicate object id keeps the FIRST
 * description (the builder alone would keep the last) and reports the later line.
 *
 * Build-time memory besides the builder: the id table (12 bytes per slot, 17–34 per object),
 * 13 bytes per ordinal (described flag, line of first reference for dangling reports, id halves
 * for the address column) and the ~100 KB batch.
 */
export class SectionGraph {
  readonly builder: HeapGraphBuilder;
  objectCount = 0;
  private readonly ids: IdTable;
  private readonly typeIds = new IdTable(1 << 10);
  /** Next free node ordinal; ordinal 0 is the root. */
  private nextOrdinal = 1;
  // Per ordinal, grown together by doubling (plain typed arrays: the hot path writes them raw).
  private capacity = 1 << 16;
  private described = new Uint8Array(this.capacity);
  private firstRefLine = new Uint32Array(this.capacity);
  /** Object id halves (lo, hi) per ordinal: the address column, copied into the builder at once in complete(). */
  private idWords = new Uint32Array(2 * this.capacity);
  private readonly batch = new ObjectBatch();
  /** Sum of the batch's touched slots, kept so the touching loads are not optimised away. */
  touched = 0;
  private readonly roots = new RootList();

  // Per type index (few: thousands). Index 0 is the builder's UNDEFINED type.
  private readonly typeName: string[] = [''];
  private readonly typeDescribed: boolean[] = [true];
  private readonly typeLine: number[] = [0];
  private readonly typeLo: number[] = [0];
  private readonly typeHi: number[] = [0];
  private readonly typeFirstSize: number[] = [-1];

  /** `expectedObjects` (from the file size) pre-sizes the id table, up to 8M slots (96 MB), so big logs never rehash. */
  constructor(expectedObjects: number) {
    const n = Math.max(1024, expectedObjects);
    this.ids = new IdTable(Math.min(Math.ceil(n / 0.7), 1 << 23));
    this.builder = new HeapGraphBuilder({ expectedNodes: n, expectedEdges: n * 2 });
    this.builder.createNodes(1);
  }

  /** Report a problem found outside this class (the walker): resolve pending records first so problems stay in line order. */
  problem(code: ProblemCode, line: number, message: string): void {
    this.flush();
    this.report(code, line, message);
  }

  private report(code: ProblemCode, line: number, message: string): void {
    const list = this.builder.problems;
    list.add(code, list.entries.length < PROBLEM_CAP ? `line ${line}: ${message}` : '');
  }

  record(letter: number, c: FieldCursor, line: number): void {
    if (letter === REC_OBJECT) return this.object(c, line);
    // Roots and types are rare next to objects: resolve pending objects first so ordinals and
    // problems come out in file order whatever the batch boundaries.
    this.flush();
    if (letter === REC_ROOT) this.root(c, line);
    else if (letter === REC_TYPE) this.type(c, line);
    else this.report('unknown-record', line, `unknown record "${preview(c.buf, c.start, c.end)}"`);
  }

  /** `o OBJECT-ID TYPE-ID SIZE [REFERENCED-ID ...]`: parsed into the batch, resolved in flush(). */
  private object(c: FieldCursor, line: number): void {
    if (!c.hex()) return this.malformed(c, line, 'object record needs a hex object id');
    const idLo = c.lo;
    const idHi = c.hi;
    if (!c.hex()) return this.malformed(c, line, 'object record needs a hex type id');
    const type = this.typeIndex(c.lo, c.hi, line);
    if (!c.hex()) return this.malformed(c, line, 'object record needs a hex size');
    let size = c.lo;
    if (c.hi !== 0) {
      this.problem('size-overflow', line, `object ${hexId(idLo, idHi)} has size ${hexId(c.lo, c.hi)}, past 32 bits; stored as 0`);
      size = 0;
    }
    const batch = this.batch;
    let bad = false;
    for (;;) {
      const got = c.nextHex();
      if (got !== HEX_OK) {
        bad = got === HEX_BAD;
        break;
      }
      batch.pushRef(c.lo, c.hi);
    }
    const full = batch.pushRecord(idLo, idHi, type, size, line);
    if (bad) this.malformed(c, line, 'reference is not a hex object id; the rest of the line was ignored');
    else if (full) this.flush();
  }

  /**
   * Resolve the batch: touch every id's home slot (independent loads), then assign ordinals in
   * record order (each record's own id, then its references) and describe the nodes.
   */
  private flush(): void {
    const bt = this.batch;
    const lines = bt.lines;
    if (lines === 0) return;
    const ids = this.ids;
    const { defLo, defHi, refEnd, defNode } = bt;
    const refLo = bt.refLo;
    const refHi = bt.refHi;
    const refNode = bt.refNode;
    let touched = 0;
    for (let i = 0; i < lines; i++) touched += ids.touch(defLo[i], defHi[i]);
    for (let k = 0, n = bt.refs; k < n; k++) touched += ids.touch(refLo[k], refHi[k]);
    this.touched = touched;

    const lineOf = bt.line;
    let k = 0;
    for (let i = 0; i < lines; i++) {
      defNode[i] = this.ordinal(defLo[i], defHi[i], 0);
      const end = refEnd[i];
      const line = lineOf[i];
      for (; k < end; k++) refNode[k] = this.ordinal(refLo[k], refHi[k], line);
    }
    const b = this.builder;
    if (b.nodeCount < this.nextOrdinal) b.createNodes(this.nextOrdinal - b.nodeCount);
    const described = this.described;
    const firstSize = this.typeFirstSize;
    const { type, size } = bt;
    let start = 0;
    for (let i = 0; i < lines; i++) {
      const node = defNode[i];
      const end = refEnd[i];
      if (described[node] !== 0) {
        this.report('duplicate-id', lineOf[i], `object ${hexId(defLo[i], defHi[i])} is described again; the first description is kept`);
      } else {
        b.setNode(node, type[i], size[i], refNode, start, end - start);
        described[node] = 1;
        this.objectCount++;
        if (firstSize[type[i]] < 0) firstSize[type[i]] = size[i];
      }
      start = end;
    }
    bt.clear();
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
    const node = this.ordinal(lo, hi, line);
    this.roots.push(node, kind, flags, container);
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

  /** The node ordinal of an object id, allocating one on first sight (`line` > 0: seen as a reference there). */
  private ordinal(lo: number, hi: number, line: number): number {
    const fresh = this.nextOrdinal;
    const node = this.ids.getOrInsert(lo, hi, fresh);
    if (node === fresh) {
      this.nextOrdinal = fresh + 1;
      if (fresh === this.capacity) this.growOrdinals();
      this.firstRefLine[fresh] = line;
      this.idWords[2 * fresh] = lo;
      this.idWords[2 * fresh + 1] = hi;
    }
    return node;
  }

  private growOrdinals(): void {
    const cap = this.capacity * 2;
    const described = new Uint8Array(cap);
    described.set(this.described);
    const firstRefLine = new Uint32Array(cap);
    firstRefLine.set(this.firstRefLine);
    const idWords = new Uint32Array(2 * cap);
    idWords.set(this.idWords);
    this.described = described;
    this.firstRefLine = firstRefLine;
    this.idWords = idWords;
    this.capacity = cap;
  }

  private typeIndex(lo: number, hi: number, line: number): number {
    const fresh = this.typeName.length;
    const t = this.typeIds.getOrInsert(lo, hi, fresh);
    if (t === fresh) {
      this.builder.addType('');
      this.typeName.push('');
      this.typeDescribed.push(false);
      this.typeLine.push(line);
      this.typeLo.push(lo);
      this.typeHi.push(hi);
      this.typeFirstSize.push(-1);
    }
    return t;
  }

  /** Resolve types, report dangling ids, hang the roots below node 0. The builder is then ready for finish(). */
  complete(token: CancellationToken): void {
    this.flush();
    const b = this.builder;
    const nObjects = this.nextOrdinal;
    if (b.nodeCount < nObjects) b.createNodes(nObjects - b.nodeCount);
    for (let t = 1; t < this.typeName.length; t++) {
      let name = this.typeName[t];
      if (!this.typeDescribed[t]) {
        name = `UNKNOWN ${hexId(this.typeLo[t], this.typeHi[t])}`;
        this.problem('unresolved-type', this.typeLine[t], `type ${hexId(this.typeLo[t], this.typeHi[t])} is used but never described; named "${name}"`);
      }
      b.setType(t, name, null, this.typeFirstSize[t]);
    }
    // Object ids are the address column (the log has no addresses); undescribed ids keep theirs too.
    const words = this.idWords;
    b.setAddressBytes(0, new Uint8Array(words.buffer, words.byteOffset, nObjects * 8));
    const described = this.described;
    const refLine = this.firstRefLine;
    const list = b.problems;
    for (let n = 1; n < nObjects; n++) {
      if ((n & 0xffff) === 0) token.throwIfCancelled();
      if (described[n] !== 0) continue;
      const spell = list.entries.length < PROBLEM_CAP;
      list.add('dangling-reference', spell ? `line ${refLine[n]}: object ${hexId(words[2 * n], words[2 * n + 1])} is referenced but never described (kept as UNDEFINED, size 0)` : '');
    }
    attachRoots(b, this.roots, nObjects, token);
    b.setRoot(0);
  }
}
