import { describe, expect, it } from 'vitest';
import { readDumpStream } from '../../../../shared/formats/dump/dump-graph.js';
import type { FileEntry, FileToken, ObjectRow, SessionId } from '../../../../shared/ipc/contract.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { cutText, stringPreviewOf } from '../../../../shared/graph/string-values.js';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../helpers/dump-stream-writer.js';

// String values where objects are listed (Instances rows, their filter and CSV; the short previews
// of path and dominator rows), on hand-built dump streams: exact rows, and the filter against a
// naive oracle on random values.

const FILE: FileEntry = { token: 'tok' as FileToken, name: 'p.dmp', displayPath: '/x/p.dmp', size: 1, modifiedMs: 0, source: 'path', formatHint: null, exists: true };
const LONG = 'ab'.repeat(512); // the reader's 1,024-char bound: the value is 3,000 chars long

function session(g: HeapGraph): SnapshotSession {
  const s = new SnapshotSession(g, { sessionId: 's1' as SessionId, file: FILE, parseMs: 1 });
  s.runAnalysis();
  return s;
}

/** Object[] → "Hello" ×2, LONG (cut off), "x\ny" and a Foo; with or without STRING_VALUE records. */
async function dump(values: boolean): Promise<HeapGraph> {
  const w = new DumpStreamWriter();
  w.type(0, 'System.Object[]').type(1, 'System.String').type(2, 'Foo');
  w.object(0x1000, 0, 64, 2, [0x2000, 0x3000, 0x4000, 0x5000, 0x6000].map((a) => [a, null] as [number, null]));
  const strings: [number, number, number, string | null, number][] = [
    [0x2000, 32, 0, 'Hello', 5],
    [0x3000, 32, 0, null, 5],
    [0x4000, 6022, 1, LONG, 3000],
    [0x5000, 28, 2, 'x\ny', 3],
  ];
  for (const [address, size, id, text, length] of strings) {
    w.object(address, 1, size, 2);
    if (values) w.stringValue(address, id, text, length);
  }
  w.object(0x6000, 2, 24, 2);
  w.root(1, 'App', 'Items', 0x1000);
  return readDumpStream(new MemoryByteSource(w.end().finish(), 'p.stream'));
}

const typeIndex = (g: HeapGraph, name: string) => g.types.names.indexOf(name);

function rows(s: SnapshotSession, g: HeapGraph, type: string, filter?: string): ObjectRow[] {
  return s.objectRows({ typeIndex: typeIndex(g, type), sort: { key: 'address', dir: 'asc' }, start: 0, end: 100, ...(filter !== undefined ? { filter } : {}) }).rows;
}

describe('string values in object rows (process dumps)', () => {
  it('each string row has its value (first 200 chars) and full length; other objects null; no fields without contents', async () => {
    const g = await dump(true);
    const s = session(g);
    expect(rows(s, g, 'System.String').map((r) => [r.address, r.value, r.valueLength])).toEqual([
      ['0x2000', 'Hello', 5],
      ['0x3000', 'Hello', 5],
      ['0x4000', LONG.slice(0, 200), 3000],
      ['0x5000', 'x\ny', 3],
    ]);
    expect(rows(s, g, 'Foo').map((r) => [r.value, r.valueLength])).toEqual([[null, null]]);

    const plain = await dump(false);
    const p = session(plain);
    for (const r of rows(p, plain, 'System.String')) expect(Object.keys(r)).toEqual(['node', 'address', 'size', 'retainedSize', 'generation', 'reachable']);
  });

  it('the filter matches a value (case-insensitive) or the hex address', async () => {
    const g = await dump(true);
    const s = session(g);
    const at = (f: string) => rows(s, g, 'System.String', f).map((r) => r.address);
    expect(at('hELLo')).toEqual(['0x2000', '0x3000']);
    expect(at('baba')).toEqual(['0x4000']);
    expect(at('4000')).toEqual(['0x4000']);
    expect(at('0x5000')).toEqual(['0x5000']);
    expect(at('x\ny')).toEqual(['0x5000']);
    expect(at('zzz')).toEqual([]);
    expect(at('00')).toEqual(['0x2000', '0x3000', '0x4000', '0x5000']);
    // without contents the filter is the address only, as before
    const plain = await dump(false);
    expect(rows(session(plain), plain, 'System.String', 'hello')).toEqual([]);
  });

  it('the CSV of a dump\'s instances has value and valueLength columns; other files keep the six columns', async () => {
    const g = await dump(true);
    const e = session(g).exportCsv({ sessionId: 's1' as SessionId, view: 'objects', typeIndex: typeIndex(g, 'System.String'), sort: { key: 'address', dir: 'asc' }, filter: 'hello' });
    expect([...e.chunks].join('')).toBe('node,address,size,retainedSize,generation,reachable,value,valueLength\r\n1,0x2000,32,32,gen2,true,Hello,5\r\n2,0x3000,32,32,gen2,true,Hello,5\r\n');
    const plain = await dump(false);
    const p = session(plain).exportCsv({ sessionId: 's1' as SessionId, view: 'objects', typeIndex: typeIndex(plain, 'System.String'), sort: { key: 'address', dir: 'asc' } });
    expect([...p.chunks].join('').split('\r\n')[0]).toBe('node,address,size,retainedSize,generation,reachable');
  });

  it('previews: quoted, one line, at most 40 chars then …; a value the reader cut off ends with …', async () => {
    const g = await dump(true);
    expect([1, 3, 4, 5].map((n) => stringPreviewOf(g, n))).toEqual(['"Hello"', `"${LONG.slice(0, 40)}…"`, '"x\\ny"', null]);
    expect(stringPreviewOf(g, 3, 2000)).toBe(`"${LONG}…"`);
    expect(cutText('a\uD83D\uDE00b', 2)).toBe('a…');
  });

  it('the inspector, dominator-tree rows and path steps carry the value; a file without contents has none of these fields', async () => {
    const g = await dump(true);
    const s = session(g);
    expect([s.objectInfo({ node: 3 }).value, s.objectInfo({ node: 3 }).valueLength, s.objectInfo({ node: 0 }).value]).toEqual([LONG, 3000, null]);
    // node 0 is the Object[] (objects are numbered in address order)
    const kids = s.dominatorChildren({ node: 0, start: 0, end: 10 }).rows;
    expect(kids.map((r) => [r.address, r.preview])).toEqual([
      ['0x4000', `"${LONG.slice(0, 40)}…"`],
      ['0x2000', '"Hello"'],
      ['0x3000', '"Hello"'],
      ['0x5000', '"x\\ny"'],
      ['0x6000', null],
    ]);
    const p = s.pathsToRoots({ target: { kind: 'object', node: 4 } });
    if (p.kind !== 'object') throw new Error(p.kind);
    expect(p.paths[0].steps.map((st) => [st.type, st.preview])).toEqual([
      ['[.NET Roots]', undefined],
      ['[static vars]', undefined],
      ['[static var App.Items]', undefined],
      ['System.Object[]', undefined],
      ['System.String', '"x\\ny"'],
    ]);

    expect(s.references({ node: 0, direction: 'outgoing', start: 0, end: 10 }).rows.map((r) => r.preview)).toEqual([
      '"Hello"',
      '"Hello"',
      `"${LONG.slice(0, 40)}…"`,
      '"x\\ny"',
      undefined,
    ]);

    const plain = await dump(false);
    const q = session(plain);
    expect(q.references({ node: 0, direction: 'outgoing', start: 0, end: 10 }).rows.some((r) => 'preview' in r)).toBe(false);
    expect('value' in q.objectInfo({ node: 1 })).toBe(false);
    expect(q.dominatorChildren({ node: null, start: 0, end: 10 }).rows.some((r) => 'preview' in r)).toBe(false);
  });

  it('random values and filters: the rows are exactly those whose value or hex address contains the filter', async () => {
    let seed = 7;
    const rnd = (k: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % k;
    };
    const alphabet = 'aAbB0x1 ';
    const word = (n: number) => Array.from({ length: n }, () => alphabet[rnd(alphabet.length)]).join('');
    for (let round = 0; round < 20; round++) {
      const w = new DumpStreamWriter();
      w.type(0, 'System.Object[]').type(1, 'System.String');
      const count = 1 + rnd(30);
      const values = Array.from({ length: 1 + rnd(8) }, () => word(rnd(6)));
      const objs = Array.from({ length: count }, (_, i) => ({ address: 0x10000 + i * 0x28, v: rnd(values.length) }));
      w.object(0x1000, 0, 16 + 8 * count, 2, objs.map((o) => [o.address, null] as [number, null]));
      const sent = new Set<number>();
      for (const o of objs) {
        w.object(o.address, 1, 40, 2).stringValue(o.address, o.v, sent.has(o.v) ? null : values[o.v], values[o.v].length);
        sent.add(o.v);
      }
      w.root(1, 'App', 'Items', 0x1000);
      const g = await readDumpStream(new MemoryByteSource(w.end().finish(), 'r.stream'));
      const s = session(g);
      for (let k = 0; k < 5; k++) {
        const filter = word(1 + rnd(3));
        const norm = filter.trim().toLowerCase();
        const hex = norm.replace(/^0x/, '');
        const expected = norm === ''
          ? objs
          : /^0x[0-9a-f]+$/.test(norm)
            ? objs.filter((o) => o.address === parseInt(norm, 16))
            : objs.filter((o) => (hex !== '' && o.address.toString(16).includes(hex)) || values[o.v].toLowerCase().includes(norm));
        expect(rows(s, g, 'System.String', filter).map((r) => r.address), `filter ${JSON.stringify(filter)}`).toEqual(expected.map((o) => '0x' + o.address.toString(16)));
      }
    }
  });
});
