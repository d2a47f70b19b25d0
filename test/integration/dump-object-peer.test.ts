import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DumpQueryClient } from '../../electron/dump-reader/dump-query-client.js';
import { liveHelpers } from '../../electron/dump-reader/helper-process.js';
import type { DumpField, DumpObject, DumpValue } from '../../shared/formats/dump/dump-queries.js';
import { runCliJson as json } from '../helpers/capture-io.js';
import { useContentsDump } from '../helpers/contents-dump-suite.js';
import { DUMP_CONTENTS_SKIP } from '../helpers/dump-contents.js';
import { peerMissing, peerTool } from '../helpers/peer-tools.js';
import { parseDumpArray, parseDumpMtName, parseDumpVc, parseWords, runSos, sameTypeName, sosTypeColumnMatches, type SosField } from '../helpers/sos-values.js';

/**
 * The object inspector's values (`heapscope object`, the helper's `object` query) against SOS, for
 * every object on the managed heap of a DumpContentsApp dump (its Sample and Variety hold a field
 * of every primitive width, enums of several underlying types, decimals, nullables, nested and
 * runtime structs, boxed values, generic instances and arrays of several kinds; the rest is
 * whatever the runtime allocated). Per object: type name, method table, size; per instance field,
 * recursively into embedded structs as deep as Heapscope expands them: name, offset, declared
 * type and value; per array: length, rank, element type, the first elements (values of primitive,
 * enum and struct elements); per string: its UTF-16 units.
 *
 * How independent the peer is: SOS (dumpvc, dumparray, dumpmt: native code in libsos.so) and
 * Heapscope's helper (ClrMD) both ask the same DAC for the type layouts (field names, offsets,
 * declared types, method tables), and dotnet-dump reads the core file's memory with its own copy
 * of ClrMD's data reader. What is checked independently: which fields are listed and in which
 * order, the reading of each value by its type (widths, signedness, floats, chars, pointers,
 * enums of each underlying type, nullables, structs inside structs, array element addressing,
 * string length and units) and the naming of types (SOS's runtime names, `1[[T, assembly]], are
 * turned into the ClrMD form, <T>, before comparing; see sameTypeName for shared generic code).
 * A field whose declared type the runtime never loaded has no method table: SOS then prints the
 * type's metadata name in its Type column (or nothing, for generic instantiations and arrays),
 * which is compared where present; Heapscope reads those names from the module's metadata
 * itself (electron/dump-reader/DeclaredTypes.cs), not through ClrMD. SOS prints floating point
 * with six decimals, so floats and doubles are compared to that precision. A lone surrogate (in a
 * string or a char) is U+FFFD in Heapscope's JSON (README: heapscope object), so SOS's unit is
 * mapped to U+FFFD before comparing. SOS `dumpobj` dies on WithHeap dumps (`heapscope dump`'s
 * default) and works on full ones: the peer uses `dumpvc` instead, which works on both, and the
 * second test shows on a full dump that the two list the same fields and values.
 */
const dotnetDump = peerTool('dotnet-dump');
const SKIP = DUMP_CONTENTS_SKIP ?? (dotnetDump ? null : peerMissing('dotnet-dump'));

/** SOS's `%f` text of a float or double against ours (a number, or "NaN" / "Infinity" / "-Infinity"). */
function sameFloat(ours: number | string | boolean, sos: string): boolean {
  if (ours === 'NaN') return /^-?nan$/i.test(sos);
  if (ours === 'Infinity') return /^inf/i.test(sos);
  if (ours === '-Infinity') return /^-inf/i.test(sos);
  if (typeof ours !== 'number') return false;
  if (Math.abs(ours) >= 1e21) return Number(sos) === ours;
  const fixed = Object.is(ours, -0) ? '-0.000000' : ours.toFixed(6);
  // A value halfway between two six-decimal numbers: JS rounds the tie up, C's printf to even.
  return fixed === sos || (Math.abs(Number(sos) - ours) <= 5e-7 && Math.abs(Number(fixed) - ours) <= 5e-7 && Math.abs(Number(sos) - Number(fixed)) <= 1.000001e-6);
}

/** A UTF-16 unit as Heapscope's JSON carries it: a lone surrogate becomes U+FFFD. */
function loneSurrogateAsJson(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? 0xfffd : unit;
}

/** A string's UTF-16 units with its lone surrogates (not its pairs) as U+FFFD. */
function unitsAsJson(units: number[]): number[] {
  return units.map((u, i) => {
    const high = u >= 0xd800 && u <= 0xdbff && units[i + 1] >= 0xdc00 && units[i + 1] <= 0xdfff;
    const low = u >= 0xdc00 && u <= 0xdfff && units[i - 1] >= 0xd800 && units[i - 1] <= 0xdbff;
    return high || low ? u : loneSurrogateAsJson(u);
  });
}

const INTEGERS = new Set(['System.SByte', 'System.Byte', 'System.Int16', 'System.UInt16', 'System.Int32', 'System.UInt32', 'System.Int64', 'System.UInt64']);

/** Why ours differs from SOS's field row (its Type column names the underlying type of an enum), or null. */
function valueMismatch(v: DumpValue, f: SosField, at: bigint): string | null {
  const sos = f.value;
  const hex = /^[0-9a-fA-F]+$/.test(sos) ? BigInt('0x' + sos) : null;
  switch (v.kind) {
    case 'primitive':
      if (!f.valueType && f.type !== 'PTR' && f.type !== 'FNPTR') return 'SOS has a reference';
      if (f.type === 'System.Boolean') return (v.value ? '1' : '0') === sos ? null : 'boolean';
      if (f.type === 'System.Char') return typeof v.value === 'string' && v.value.length === 1 && v.value.charCodeAt(0) === loneSurrogateAsJson(parseInt(sos, 16)) ? null : 'char';
      // Pointers: SOS's Type column says PTR / FNPTR and its VT column No.
      if (f.type === 'PTR' || f.type === 'FNPTR') return hex !== null && BigInt(String(v.value)) === hex ? null : 'pointer';
      if (f.type === 'System.Single' || f.type === 'System.Double') return sameFloat(v.value, sos) ? null : 'float';
      if (f.type === 'System.IntPtr' || f.type === 'System.UIntPtr') return hex !== null && BigInt(String(v.value)) === hex ? null : 'pointer';
      if (INTEGERS.has(f.type)) return String(v.value) === sos ? null : 'integer';
      return `primitive of SOS type ${f.type}`;
    case 'enum':
      return f.valueType && INTEGERS.has(f.type) && String(v.value) === sos ? null : 'enum';
    case 'null':
      return !f.valueType && hex === 0n ? null : 'null';
    case 'reference':
    case 'string':
      return !f.valueType && hex === BigInt(v.address) ? null : 'reference';
    case 'struct':
      return f.valueType && hex === at ? null : 'embedded struct address';
    case 'unreadable':
      return 'unreadable';
  }
}

type Check =
  | { kind: 'fields'; what: string; mt: bigint; at: bigint; ours: DumpField[]; depth: number }
  | { kind: 'array'; what: string; address: bigint; ours: NonNullable<DumpObject['array']> }
  | { kind: 'element'; what: string; mt: bigint; at: bigint; ours: DumpValue }
  | { kind: 'chars'; what: string; at: bigint; ours: string }
  | { kind: 'name'; what: string; mt: bigint; ours: string };

/** Heapscope expands structs inside structs this deep (ObjectQuery.MaxStructDepth). */
const MAX_STRUCT_DEPTH = 3;
/** Value-type array elements compared through dumpvc, per array. */
const ELEMENTS_COMPARED = 4;

describe.skipIf(SKIP !== null)(`object field values agree with SOS (${SKIP ?? 'dotnet, the dump reader and dotnet-dump found'})`, () => {
  const d = useContentsDump();

  it('every object on the heap: type, method table, size, every field (name, offset, declared type, value), array elements, string units', async () => {
    const heap = execFileSync(dotnetDump!, ['analyze', d.dump, '-c', 'dumpheap', '-c', 'exit'], { encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 28 });
    const objects: { address: bigint; mt: bigint; size: number }[] = [];
    for (const line of heap.split('\n')) {
      const m = /^\s+([0-9a-f]{8,16})\s+([0-9a-f]{8,16})\s+([\d,]+)\s*$/.exec(line); // Free blocks end in "Free"
      if (m) objects.push({ address: BigInt('0x' + m[1]), mt: BigInt('0x' + m[2]), size: Number(m[3].replace(/,/g, '')) });
    }
    expect(objects.length).toBeGreaterThan(300);

    const client = new DumpQueryClient(d.dump, 'contents.dmp');
    const mismatches: string[] = [];
    const seen = { fields: 0, structs: 0, enums: 0, floats: 0, elements: 0, strings: 0, arrays: 0, names: 0, unloaded: 0, unnamedBySos: 0 };
    let queue: Check[] = [];
    const named = new Set<string>();
    const name = (what: string, mt: bigint, ours: string) => {
      const key = `${mt} ${ours}`;
      if (named.has(key)) return;
      named.add(key);
      queue.push({ kind: 'name', what, mt, ours });
    };
    let variety: DumpObject | null = null;
    const expected = { arrays: 0, strings: 0 };
    try {
      for (const o of objects) {
        const what = `object 0x${o.address.toString(16)}`;
        const ours = await client.query({ query: 'object', address: '0x' + o.address.toString(16) });
        if (ours.type === 'HeapscopeTest.Variety') variety = ours;
        if (BigInt(ours.methodTable) !== o.mt || ours.size !== o.size) mismatches.push(`${what}: method table ${ours.methodTable} size ${ours.size}, SOS 0x${o.mt.toString(16)} ${o.size}`);
        name(what, o.mt, ours.type);
        if (ours.array) {
          if (ours.fields.length !== 0) mismatches.push(`${what}: an array with fields`);
          queue.push({ kind: 'array', what, address: o.address, ours: ours.array });
          expected.arrays++;
        } else {
          queue.push({ kind: 'fields', what, mt: o.mt, at: o.address + 8n, ours: ours.fields, depth: 0 });
        }
        if (ours.string && ours.string.length > 0) {
          queue.push({ kind: 'chars', what, at: o.address + 12n, ours: ours.string.value });
          expected.strings++;
        }
      }
    } finally {
      await client.close();
    }

    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      const commands = batch.map((c) => {
        switch (c.kind) {
          case 'fields':
          case 'element':
            return `dumpvc ${c.mt.toString(16)} ${c.at.toString(16)}`;
          case 'array':
            // (-length is refused for arrays of rank > 1; those here are small)
            return c.ours.rank > 1 ? `dumparray ${c.address.toString(16)}` : `dumparray -length ${c.ours.elements.length} ${c.address.toString(16)}`;
          case 'chars':
            return `dw -c ${c.ours.length} ${c.at.toString(16)}`;
          case 'name':
            return `dumpmt ${c.mt.toString(16)}`;
        }
      });
      const outputs = runSos(dotnetDump!, d.dump, commands, objects[0].address);
      batch.forEach((c, i) => {
        const out = outputs[i];
        if (c.kind === 'name') {
          seen.names++;
          const theirs = parseDumpMtName(out);
          if (theirs === null || !sameTypeName(c.ours, theirs)) mismatches.push(`${c.what}: type ${c.ours}, SOS ${theirs}`);
        } else if (c.kind === 'chars') {
          seen.strings++;
          const units = Array.from({ length: c.ours.length }, (_, k) => c.ours.charCodeAt(k));
          if (JSON.stringify(unitsAsJson(parseWords(out))) !== JSON.stringify(units)) mismatches.push(`${c.what}: string ${JSON.stringify(c.ours)}, SOS units ${parseWords(out).join(' ')}`);
        } else if (c.kind === 'array') {
          seen.arrays++;
          const a = parseDumpArray(out);
          const ours = c.ours;
          if (!a) return void mismatches.push(`${c.what}: SOS printed no array: ${out.slice(0, 300)}`);
          if (a.length !== ours.length || a.rank !== ours.rank) return void mismatches.push(`${c.what}: length ${ours.length} rank ${ours.rank}, SOS ${a.length} ${a.rank}`);
          name(`${c.what} element type`, a.elementMt, ours.elementType);
          if (a.rank > 1) a.elements.length = Math.min(a.elements.length, ours.elements.length);
          if (a.elements.length !== ours.elements.length) return void mismatches.push(`${c.what}: ${ours.elements.length} elements listed, SOS ${a.elements.length}`);
          ours.elements.forEach((v, k) => {
            const at = a.elements[k];
            const what = `${c.what}[${k}]`;
            if (a.kind === 'CLASS') {
              seen.elements++;
              const same = v.kind === 'null' ? at === null : (v.kind === 'reference' || v.kind === 'string') && at === BigInt(v.address);
              if (!same) mismatches.push(`${what}: ${v.text}, SOS ${at === null ? 'null' : at.toString(16)}`);
            } else if (k < ELEMENTS_COMPARED && at !== null) {
              queue.push({ kind: 'element', what, mt: a.elementMt, at, ours: v });
            }
          });
        } else {
          const vc = parseDumpVc(out);
          if (!vc) return void mismatches.push(`${c.what}: SOS printed no fields: ${out.slice(0, 300)}`);
          const instance = vc.fields.filter((f) => f.attr === 'instance');
          if (c.kind === 'element') {
            seen.elements++;
            if (c.ours.kind === 'struct') return void compareFields(c.what, instance, c.ours.fields, c.at, 1);
            // A primitive or enum element: SOS shows the boxed form's one field (m_value, value__).
            if (instance.length !== 1) return void mismatches.push(`${c.what}: SOS fields ${instance.map((f) => f.name).join(', ')}`);
            const why = valueMismatch(c.ours, instance[0], c.at);
            if (why) mismatches.push(`${c.what}: ${why}: ${c.ours.text}, SOS ${instance[0].value}`);
            return;
          }
          compareFields(c.what, instance, c.ours, c.at, c.depth);
        }
      });
    }

    function compareFields(what: string, sos: SosField[], ours: DumpField[], at: bigint, depth: number): void {
      if (sos.map((f) => f.name).join(',') !== ours.map((f) => f.name).join(',')) {
        mismatches.push(`${what}: fields ${ours.map((f) => f.name).join(', ')}, SOS ${sos.map((f) => f.name).join(', ')}`);
        return;
      }
      sos.forEach((f, k) => {
        const o = ours[k];
        const where = `${what}.${o.name}`;
        seen.fields++;
        if (o.offset !== f.offset) mismatches.push(`${where}: offset ${o.offset}, SOS ${f.offset}`);
        if (f.mt !== 0n) name(`${where} declared type`, f.mt, o.declaredType);
        else if (/^(\.\.\.|[\w<>`]+\.)/.test(f.type)) {
          // not loaded: SOS names it from metadata in the Type column (shortened to its tail)
          seen.unloaded++;
          if (!sosTypeColumnMatches(f.type, o.declaredType)) mismatches.push(`${where}: declared type ${o.declaredType}, SOS (no method table) ${f.type}`);
        } else seen.unnamedBySos++;
        const why = valueMismatch(o.value, f, at + BigInt(f.offset));
        if (why) mismatches.push(`${where}: ${why}: ${o.value.text}, SOS ${f.value} (${f.type})`);
        if (o.value.kind === 'enum') seen.enums++;
        if (f.type === 'System.Single' || f.type === 'System.Double') seen.floats++;
        if (o.value.kind === 'struct') {
          seen.structs++;
          if (depth < MAX_STRUCT_DEPTH) queue.push({ kind: 'fields', what: where, mt: f.mt, at: at + BigInt(f.offset), ours: o.value.fields, depth: depth + 1 });
          else if (o.value.fields.length !== 0) mismatches.push(`${where}: expanded past depth ${MAX_STRUCT_DEPTH}`);
        }
      });
    }

    expect(mismatches).toEqual([]);
    // What was compared: every object (its name included); the counts show the comparison ran.
    expect(seen.names).toBeGreaterThanOrEqual(new Set(objects.map((o) => o.mt)).size);
    expect([seen.arrays, seen.strings]).toEqual([expected.arrays, expected.strings]);
    console.log(`compared with SOS: ${objects.length} objects, ${JSON.stringify(seen)}`);
    expect(variety).not.toBeNull();
    // A ulong enum past long.MaxValue (its value a decimal string: a JSON number would lose digits).
    expect(variety!.fields.find((f) => f.name === 'Huge')!.value).toEqual({ kind: 'enum', value: '18446744073709551600', name: 'Top', text: 'Top' });
    // A decimal's text is its value (its fields are compared with SOS above), also inside a struct.
    const money = variety!.fields.find((f) => f.name === 'Money')!.value;
    const outer = variety!.fields.find((f) => f.name === 'Outer')!.value;
    expect([money.kind, money.text]).toEqual(['struct', '-1234.5678']);
    expect(outer.kind === 'struct' ? outer.fields.map((f) => [f.name, f.value.text]) : null).toEqual([
      ['Inner', 'HeapscopeTest.Pair'],
      ['Mood', 'Busy'],
      ['Text', '"inner text"'],
      ['Money', '0.01'],
    ]);
    // Declared types never loaded (SOS names the first in its Type column, the others not at all).
    expect(variety!.fields.filter((f) => f.name.startsWith('Unloaded')).map((f) => [f.name, f.declaredType, f.value.kind])).toEqual([
      ['Unloaded', 'HeapscopeTest.NeverMade', 'null'],
      ['UnloadedArray', 'HeapscopeTest.NeverMade[]', 'null'],
      ['UnloadedGeneric', 'System.Collections.Generic.Dictionary<System.Int32, HeapscopeTest.NeverMade>', 'null'],
    ]);
    expect(Math.min(seen.fields, seen.structs, seen.enums, seen.floats, seen.elements, seen.strings, seen.arrays, seen.unloaded)).toBeGreaterThan(0);

    // The CLI prints the same JSON the client got (plus the file name).
    const cli = await json<DumpObject & { file: string }>(['object', d.dump, '--address', variety!.address]);
    expect({ ...cli, file: undefined }).toEqual({ ...variety, file: undefined });
    expect(liveHelpers()).toBe(0);
  }, 600_000);
});

describe.skipIf(SKIP !== null)(`SOS dumpvc stands for dumpobj (${SKIP ?? 'dotnet, the dump reader and dotnet-dump found'})`, () => {
  const d = useContentsDump('full');

  it('on a full dump (where dumpobj works) dumpobj ADDR and dumpvc MT ADDR+8 list the same fields and values for every HeapscopeTest object', () => {
    const heap = execFileSync(dotnetDump!, ['analyze', d.dump, '-c', 'dumpheap -type HeapscopeTest.', '-c', 'exit'], { encoding: 'utf8', timeout: 300_000 });
    const objects: { address: bigint; mt: bigint }[] = [];
    for (const line of heap.split('\n')) {
      const m = /^\s+([0-9a-f]{8,16})\s+([0-9a-f]{8,16})\s+[\d,]+\s*$/.exec(line);
      if (m) objects.push({ address: BigInt('0x' + m[1]), mt: BigInt('0x' + m[2]) });
    }
    // Sample, Variety, Owner ×2, Clock, ParkedLocal, Box ×3, arrays of Owner, Pair and Mood, and the closures
    expect(objects.length).toBeGreaterThanOrEqual(12);
    const commands = objects.flatMap((o) => [`dumpobj ${o.address.toString(16)}`, `dumpvc ${o.mt.toString(16)} ${(o.address + 8n).toString(16)}`]);
    const out = runSos(dotnetDump!, d.dump, commands, objects[0].address);
    let compared = 0;
    objects.forEach((o, i) => {
      const obj = parseDumpVc(out[2 * i]);
      const vc = parseDumpVc(out[2 * i + 1]);
      if (/^Array:/m.test(out[2 * i])) return; // arrays: dumpobj prints no fields table
      expect(obj, out[2 * i]).not.toBeNull();
      // dumpobj counts offsets from the object's start (after the header), dumpvc from its fields
      expect(obj!.fields.filter((f) => f.attr === 'instance').map((f) => ({ ...f, offset: f.offset - 8 }))).toEqual(vc!.fields.filter((f) => f.attr === 'instance'));
      compared++;
    });
    expect(compared).toBeGreaterThanOrEqual(9);
  }, 600_000);
});
