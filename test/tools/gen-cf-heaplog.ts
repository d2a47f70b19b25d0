/**
 * Generates realistic Compact Framework heap logs (RPM "CF heap log v2") with KNOWN answers.
 *
 *   npm run gen:cf -- --objects 100000 --out big.log [--seed 7] [--expected big.json]
 *
 * Two AppDomain sections: the main one with `objects` objects (32-bit ids) and a small second one
 * (64-bit ids, to exercise wide ids). Every answer is known by construction, not by running any
 * Heapscope code: objects are split into three parts,
 *   - strong: each one is a rooted head or the child of an earlier strong object, so all are
 *     reachable; extra references (to any strong object, earlier or later, and to parents) add cycles;
 *   - weak-only: the same shape, but heads are held only by weak GC handles and no strong object
 *     references them, so none is reachable once weak edges are ignored;
 *   - garbage: unrooted chains that may reference anything (nothing becomes reachable through them).
 * Half the type records come after the objects (forward type references); static roots name their
 * container types; some roots are pinned, interior, duplicated, or weak-and-pinned (weak wins).
 */
import { writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { mulberry32 as rng } from '../helpers/prng.js';

export interface CfGenOptions {
  objects: number;
  seed?: number;
  /** Objects in the second AppDomain; default max(20, objects / 20). */
  secondObjects?: number;
}

/** The answers for one section, in the terms of the README's CF graph layout. */
export interface CfExpectedSection {
  name: string;
  startMs: number;
  /** As written: modulo 2^32. */
  endMs: number;
  durationMs: number;
  objects: number;
  totalSize: number;
  references: number;
  /** `t` records (all distinct ids). */
  typeRecords: number;
  /** Types used by an `o` or `r` record before their `t` record. */
  forwardTypes: number;
  rootRecords: number;
  /** Direct children of each category below "[CF Roots]" (holders count once under "[static vars]"). */
  categories: Record<string, number>;
  /** "[static vars of T]" → roots below it (unpinned statics only). */
  staticHolders: Record<string, number>;
  pseudoNodes: number;
  /** Distinct objects with a pinned, non-weak root. */
  pinnedObjects: number;
  strongObjects: number;
  weakOnlyObjects: number;
  garbageObjects: number;
  /** Some object ids of each part, for spot checks (hex, no 0x). */
  sampleIds: { strong: string[]; weakOnly: string[]; garbage: string[] };
}

const TYPE_NAMES = [
  'System.String', 'System.Object[]', 'System.Byte[]', 'System.Int32[]', 'System.Char[]',
  'System.Collections.ArrayList', 'System.Collections.Hashtable', 'System.Collections.Hashtable+bucket[]',
  'System.Collections.Generic.List`1[[System.String, mscorlib]]',
  'System.Collections.Generic.Dictionary`2[[System.String, mscorlib],[System.Int32, mscorlib]]',
  'System.RuntimeType', 'System.EventHandler', 'System.Text.StringBuilder', 'System.Threading.Thread',
  'System.Windows.Forms.Control', 'System.Windows.Forms.Timer', 'System.Drawing.Bitmap', 'System.Drawing.SolidBrush',
  'Microsoft.Xna.Framework.Graphics.Texture2D', 'Microsoft.Xna.Framework.Vector2[]',
  'BubbleGame.Bubble', 'BubbleGame.Board', 'BubbleGame.ScoreKeeper', 'BubbleGame.Sprite', 'BubbleGame.Level',
  'BubbleGame.Particle', 'BubbleGame.SoundBank', 'BubbleGame.Input.TouchState',
];
const CONTAINER_NAMES = ['BubbleGame.Program', 'BubbleGame.Settings', 'BubbleGame.Sounds', 'System.Windows.Forms.Application'];
const KIND_NAMES = ['[CLR internal roots]', '[local vars]', '[finalizer queue]', '[GC handles]', '[static vars]', '[CF GC roots]'];


const STRONG = 0;
const WEAK = 1;
const GARBAGE = 2;

/** Buffers text and hands it out in ~1 MB pieces. */
class Out {
  private parts: string[] = [];
  private len = 0;
  constructor(private readonly sink: (s: string) => void) {}
  line(s: string): void {
    this.parts.push(s, '\n');
    this.len += s.length + 1;
    if (this.len > 1 << 20) this.flush();
  }
  flush(): void {
    if (this.parts.length) this.sink(this.parts.join(''));
    this.parts = [];
    this.len = 0;
  }
}

interface SectionSpec {
  name: string;
  objects: number;
  seed: number;
  idBase: number;
  startMs: number;
  typeNames: string[];
}

function genSection(spec: SectionSpec, out: Out): CfExpectedSection {
  const r = rng(spec.seed);
  const n = spec.objects;
  const pick = (k: number): number => Math.floor(r() * k);

  // Types: distinct random ids; containers are types too (usually without instances).
  const allTypes = [...spec.typeNames, ...CONTAINER_NAMES];
  const typeIds: number[] = [];
  const usedIds = new Set<number>();
  for (let t = 0; t < allTypes.length; t++) {
    let id: number;
    do id = 1 + pick(0xfff);
    while (usedIds.has(id));
    usedIds.add(id);
    typeIds.push(id);
  }
  const objectTypes = spec.typeNames.length;
  const containerBase = objectTypes;
  // Odd type indices are described up front, even ones after the objects (forward references).
  const early = (t: number): boolean => t % 2 === 1;

  // Objects: part, type, size, id.
  const part = new Uint8Array(n);
  const type = new Uint16Array(n);
  const size = new Uint32Array(n);
  const ids = new Float64Array(n);
  const parent = new Int32Array(n).fill(-1);
  const lists: number[][] = [[], [], []];
  let addr = spec.idBase;
  let totalSize = 0;
  for (let i = 0; i < n; i++) {
    const x = r();
    const p = i < 3 ? i : x < 0.85 ? STRONG : x < 0.93 ? WEAK : GARBAGE;
    part[i] = p;
    type[i] = pick(objectTypes);
    const y = r();
    const s = y < 0.7 ? 12 + 4 * pick(14) : y < 0.95 ? 64 + 4 * pick(112) : 512 + 4 * pick(16000);
    size[i] = s;
    totalSize += s;
    ids[i] = addr;
    addr += s + pick(4);
    const list = lists[p];
    // A head when first of its part or 2% of the time; otherwise a child of an earlier one of the same part.
    if (list.length > 0 && r() >= 0.02) {
      const win = Math.min(list.length, 1000);
      parent[i] = r() < 0.5 ? list[list.length - 1 - pick(win)] : list[pick(list.length)];
    }
    list.push(i);
  }
  const [strong, weak, garbage] = lists;

  // Edges: parent → child, plus extras. Strong objects reference only strong ones.
  const src: number[] = [];
  const dst: number[] = [];
  for (let i = 0; i < n; i++) {
    if (parent[i] >= 0) {
      src.push(parent[i]);
      dst.push(i);
    }
  }
  for (let i = 0; i < n; i++) {
    const p = part[i];
    const own = lists[p];
    if (r() < 0.3) {
      const k = 1 + pick(3);
      for (let j = 0; j < k; j++) {
        src.push(i);
        dst.push(p === GARBAGE ? pick(n) : p === WEAK && r() < 0.2 ? strong[pick(strong.length)] : own[pick(own.length)]);
      }
    }
    if (parent[i] >= 0 && r() < 0.05) {
      src.push(i); // back to the parent: a 2-cycle
      dst.push(parent[i]);
    }
    if (r() < 0.01) {
      src.push(i);
      dst.push(i);
    }
  }
  const references = src.length;
  const first = new Uint32Array(n + 1);
  for (const s of src) first[s + 1]++;
  for (let i = 0; i < n; i++) first[i + 1] += first[i];
  const fill = first.slice(0, n);
  const refs = new Uint32Array(references);
  for (let e = 0; e < references; e++) refs[fill[src[e]]++] = dst[e];

  // Roots: [object, kind, flags, containerIndex | -1].
  const roots: [number, number, number, number][] = [];
  for (const i of strong) {
    if (parent[i] < 0) {
      const kind = [0, 1, 2, 3, 4, 5, 1, 3, 4][pick(9)];
      const flags = (kind === 1 || kind === 3) && r() < 0.1 ? 1 : kind === 1 && r() < 0.1 ? 4 : 0;
      roots.push([i, kind, flags, kind === 4 ? pick(CONTAINER_NAMES.length) : -1]);
    } else if (r() < 0.01) {
      roots.push([i, 1, r() < 0.2 ? 5 : 0, -1]); // extra local / pinned interior local on a non-head
    }
    if (r() < 0.002) roots.push([i, 3, 2, -1]); // weak handle to a strongly held object
  }
  for (const i of weak) if (parent[i] < 0) roots.push([i, 3, r() < 0.1 ? 3 : 2, -1]); // weak (some also "pinned")
  roots.push([strong[0], 4, 1, 0]); // a pinned static
  roots.push([strong[0], 1, 0, -1]); // a duplicate root
  // A few roots go before the objects, so roots also reference ids not yet described.
  const earlyRoots = Math.max(1, Math.floor(roots.length / 10));

  // Expected root layout.
  const categories: Record<string, number> = {};
  const staticHolders: Record<string, number> = {};
  const holderKeys = new Set<string>();
  const pinned = new Set<number>();
  const bump = (o: Record<string, number>, k: string, by = 1): void => {
    o[k] = (o[k] ?? 0) + by;
  };
  for (const [obj, kind, flags, container] of roots) {
    if (flags & 2) {
      bump(categories, '[weak GC handles]');
      continue;
    }
    const isPinned = (flags & 1) !== 0;
    if (isPinned) pinned.add(obj);
    const cat = isPinned ? `[pinned ${KIND_NAMES[kind].slice(1)}` : KIND_NAMES[kind];
    if (kind === 4 && container >= 0) {
      const holder = `[static vars of ${CONTAINER_NAMES[container]}]`;
      const key = `${cat}/${holder}`;
      if (!holderKeys.has(key)) {
        holderKeys.add(key);
        bump(categories, cat);
      }
      if (!isPinned) bump(staticHolders, holder);
    } else {
      bump(categories, cat);
    }
  }

  // Emit.
  const durationMs = 200 + pick(2000);
  const endMs = (spec.startMs + durationMs) % 4294967296; // GetTickCount wraps at 2^32

  const hex = (v: number): string => v.toString(16);
  let typeRecords = 0;
  const describedEarly = new Set<number>();
  out.line(`a 2 ${spec.name} ${hex(spec.startMs)}`);
  for (let t = 0; t < allTypes.length; t++) {
    if (early(t)) {
      out.line(`t ${hex(typeIds[t])} ${allTypes[t]}`);
      describedEarly.add(t);
      typeRecords++;
    }
  }
  const rootLine = ([obj, kind, flags, container]: [number, number, number, number]): string =>
    `r ${hex(ids[obj])} ${hex(kind)} ${hex(flags)}` + (container >= 0 ? ` ${hex(typeIds[containerBase + container])}` : '');
  for (let k = 0; k < earlyRoots; k++) out.line(rootLine(roots[k]));
  const usedTypes = new Set<number>();
  for (let k = 0; k < earlyRoots; k++) if (roots[k][3] >= 0) usedTypes.add(containerBase + roots[k][3]);
  for (let i = 0; i < n; i++) {
    let s = `o ${hex(ids[i])} ${hex(typeIds[type[i]])} ${hex(size[i])}`;
    for (let e = first[i]; e < first[i + 1]; e++) s += ' ' + hex(ids[refs[e]]);
    out.line(s);
    usedTypes.add(type[i]);
  }
  for (let k = earlyRoots; k < roots.length; k++) {
    out.line(rootLine(roots[k]));
    if (roots[k][3] >= 0) usedTypes.add(containerBase + roots[k][3]);
  }
  let forwardTypes = 0;
  for (let t = 0; t < allTypes.length; t++) {
    if (!describedEarly.has(t)) {
      out.line(`t ${hex(typeIds[t])} ${allTypes[t]}`);
      typeRecords++;
      if (usedTypes.has(t)) forwardTypes++;
    }
  }
  out.line(`c ${spec.name} ${hex(endMs)}`);

  const pseudoNodes = 1 + Object.keys(categories).length + holderKeys.size;
  const sample = (list: number[]): string[] => list.slice(0, 3).map((i) => hex(ids[i]));
  return {
    name: spec.name,
    startMs: spec.startMs,
    endMs,
    durationMs,
    objects: n,
    totalSize,
    references,
    typeRecords,
    forwardTypes,
    rootRecords: roots.length,
    categories,
    staticHolders,
    pseudoNodes,
    pinnedObjects: pinned.size,
    strongObjects: strong.length,
    weakOnlyObjects: weak.length,
    garbageObjects: garbage.length,
    sampleIds: { strong: sample(strong), weakOnly: sample(weak), garbage: sample(garbage) },
  };
}

/** Write a two-AppDomain log through `sink`; returns the answers per section. */
export function generateCfHeapLog(opts: CfGenOptions, sink: (text: string) => void): CfExpectedSection[] {
  const seed = opts.seed ?? 1;
  const out = new Out(sink);
  const sections = [
    genSection({ name: 'bubblecs.exe', objects: Math.max(3, opts.objects), seed, idBase: 0x10000, startMs: 0x763f9d2, typeNames: TYPE_NAMES }, out),
    genSection(
      {
        name: 'BubbleGame.Plugins',
        objects: Math.max(3, opts.secondObjects ?? Math.max(20, Math.floor(opts.objects / 20))),
        seed: seed * 31 + 7,
        idBase: 0x7ff6_0000_0000, // past 32 bits: 64-bit ids
        startMs: 0xffffff80, // the tick counter wraps inside this section
        typeNames: TYPE_NAMES.slice(0, 12),
      },
      out,
    ),
  ];
  out.flush();
  return sections;
}

/** The whole log as one string (tests). */
export function generateCfHeapLogText(opts: CfGenOptions): { text: string; sections: CfExpectedSection[] } {
  const parts: string[] = [];
  const sections = generateCfHeapLog(opts, (s) => parts.push(s));
  return { text: parts.join(''), sections };
}

/** The whole log as bytes without one giant string (benchmarks with millions of objects). */
export function generateCfHeapLogBytes(opts: CfGenOptions): { bytes: Uint8Array; sections: CfExpectedSection[] } {
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const sections = generateCfHeapLog(opts, (s) => {
    const b = enc.encode(s);
    chunks.push(b);
    total += b.length;
  });
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return { bytes, sections };
}

function main(argv: string[]): void {
  const get = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const objects = Number(get('objects') ?? '100000');
  const outPath = get('out');
  if (!outPath || !Number.isInteger(objects) || objects < 1) {
    process.stderr.write('usage: npm run gen:cf -- --objects N --out FILE.log [--seed S] [--expected FILE.json]\n');
    process.exitCode = 2;
    return;
  }
  const fd = openSync(outPath, 'w');
  let bytes = 0;
  const sections = generateCfHeapLog({ objects, seed: Number(get('seed') ?? '1') }, (s) => {
    bytes += writeSync(fd, s);
  });
  closeSync(fd);
  const expectedPath = get('expected');
  if (expectedPath) writeFileSync(expectedPath, JSON.stringify(sections, null, 2) + '\n');
  for (const s of sections) {
    process.stdout.write(
      `${s.name}: ${s.objects} objects, ${s.totalSize} bytes, ${s.references} references, ${s.rootRecords} roots, ` +
        `${s.strongObjects} strong / ${s.weakOnlyObjects} weak-only / ${s.garbageObjects} unrooted\n`,
    );
  }
  process.stdout.write(`wrote ${outPath} (${bytes} bytes)\n`);
}

if (process.argv[1]?.endsWith('gen-cf-heaplog.ts')) main(process.argv.slice(2));
