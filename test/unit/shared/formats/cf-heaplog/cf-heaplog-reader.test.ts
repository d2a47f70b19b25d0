import { describe, expect, it } from 'vitest';
import { AppError, FormatError } from '../../../../../shared/errors.js';
import { listCfHeapLogSections, readCfHeapLog } from '../../../../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { NODE_PINNED, NODE_PSEUDO, NODE_UNDEFINED, NODE_WEAK_EDGES } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { CancellationSource } from '../../../../../shared/util/cancellation.js';

// The example from the format's documentation (Steven Pratschner, "Write your own GC Heap Viewer
// for the .Net Compact Framework"), as quoted in the issue.
const DOC_EXAMPLE = ['a 2 bubblecs.exe 763f9d2', 't 2 System.RuntimeType', 'o 7c79f 2 64', 'o 1ce056 1d 118 1ce11f 1ce14c 1ce079', 'r 22c81b 5 0', 'r b2753 4 0 13c', 'c bubblecs.exe 763fbef', ''].join('\n');

export function source(text: string | Uint8Array, name = 'test.log'): MemoryByteSource {
  return new MemoryByteSource(typeof text === 'string' ? new TextEncoder().encode(text) : text, name);
}

const nameOf = (g: HeapGraph, n: number): string => g.types.names[g.nodeType[n]];
const children = (g: HeapGraph, n: number): number[] => Array.from(g.edgeTarget.subarray(g.firstEdge[n], g.firstEdge[n + 1]));
/** The node with this id in the address column (ids are the addresses). */
const byId = (g: HeapGraph, id: bigint): number => {
  for (let n = 0; n < g.nodeCount; n++) if (g.address[n] === id && (g.nodeFlags[n] & NODE_PSEUDO) === 0) return n;
  throw new Error(`no node 0x${id.toString(16)}`);
};
/** Category name → child names, one level below the root. */
const rootView = (g: HeapGraph): Record<string, string[]> => {
  const out: Record<string, string[]> = {};
  for (const c of children(g, g.rootIndex)) out[nameOf(g, c)] = children(g, c).map((k) => (g.nodeFlags[k] & NODE_PSEUDO ? nameOf(g, k) : '0x' + g.address[k].toString(16)));
  return out;
};
const problemLines = (g: HeapGraph): string[] => g.problems.entries.map((p) => `${p.code} ${p.message}`);

describe('readCfHeapLog on the documentation example', () => {
  it('reads objects, sizes, types and the forward/unknown type ids', async () => {
    const g = await readCfHeapLog(source(DOC_EXAMPLE));
    // 1 root + 2 objects + 5 referenced-only ids + [static vars], [CF GC roots], [static vars of …]
    expect(g.nodeCount).toBe(11);
    expect(g.totalSize).toBe(0x64 + 0x118); // 380
    expect(g.types.names.slice(0, 4)).toEqual(['UNDEFINED', 'System.RuntimeType', 'UNKNOWN 0x1d', 'UNKNOWN 0x13c']);
    const a = byId(g, 0x7c79fn);
    const b = byId(g, 0x1ce056n);
    expect([nameOf(g, a), g.selfSize[a], children(g, a).length]).toEqual(['System.RuntimeType', 100, 0]);
    expect([nameOf(g, b), g.selfSize[b]]).toEqual(['UNKNOWN 0x1d', 280]);
    expect(children(g, b).map((k) => g.address[k])).toEqual([0x1ce11fn, 0x1ce14cn, 0x1ce079n]);
    let undef = 0;
    for (let n = 0; n < g.nodeCount; n++) if (g.nodeFlags[n] & NODE_UNDEFINED) undef++;
    expect(undef).toBe(5);
    expect(g.edgeCount).toBe(3 + 2 + 1 + 1 + 1); // object refs + root→2 categories + 2 category→child + holder→object
  });

  it('hangs roots by kind, the static one below its container type', async () => {
    const g = await readCfHeapLog(source(DOC_EXAMPLE));
    // the root comes last: every node's references are then in CSR order as the log is read
    expect(g.rootIndex).toBe(g.nodeCount - 1);
    expect(nameOf(g, g.rootIndex)).toBe('[CF Roots]');
    expect(rootView(g)).toEqual({
      '[static vars]': ['[static vars of UNKNOWN 0x13c]'],
      '[CF GC roots]': ['0x22c81b'],
    });
    const holder = children(g, children(g, g.rootIndex)[0])[0];
    expect(children(g, holder).map((k) => g.address[k])).toEqual([0xb2753n]);
    for (const n of [g.rootIndex, ...children(g, g.rootIndex), holder]) expect(g.nodeFlags[n] & NODE_PSEUDO).toBe(NODE_PSEUDO);
  });

  it('reports dangling ids and unresolved types with line numbers, and fills metadata', async () => {
    const g = await readCfHeapLog(source(DOC_EXAMPLE));
    expect(g.problems.counts).toEqual({ 'unresolved-type': 2, 'dangling-reference': 5, 'undefined-node': 5 });
    expect(problemLines(g).slice(0, 7)).toEqual([
      'unresolved-type line 4: type 0x1d is used but never described; named "UNKNOWN 0x1d"',
      'unresolved-type line 6: type 0x13c is used but never described; named "UNKNOWN 0x13c"',
      'dangling-reference line 4: object 0x1ce11f is referenced but never described (kept as UNDEFINED, size 0)',
      'dangling-reference line 4: object 0x1ce14c is referenced but never described (kept as UNDEFINED, size 0)',
      'dangling-reference line 4: object 0x1ce079 is referenced but never described (kept as UNDEFINED, size 0)',
      'dangling-reference line 5: object 0x22c81b is referenced but never described (kept as UNDEFINED, size 0)',
      'dangling-reference line 6: object 0xb2753 is referenced but never described (kept as UNDEFINED, size 0)',
    ]);
    const m = g.metadata;
    expect([m.format, m.formatVersion, m.processName, m.pointerSize, m.segments]).toEqual(['cf-heaplog', 'CF heap log v2', 'bubblecs.exe', 4, null]);
    expect(m.extra).toEqual({
      appDomain: 'bubblecs.exe',
      startTimestampMs: 0x763f9d2,
      endTimestampMs: 0x763fbef,
      durationMs: 541,
      sectionIndex: 0,
      sectionCount: 1,
    });
    expect(g.hasGenerationData).toBe(false);
  });

  it('lists the single section', async () => {
    expect(await listCfHeapLogSections(source(DOC_EXAMPLE))).toEqual([
      { index: 0, name: 'bubblecs.exe', startMs: 0x763f9d2, endMs: 0x763fbef, objects: 2 },
    ]);
  });
});

describe('readCfHeapLog roots', () => {
  const log = [
    'a 2 app.exe',
    'o 10 1 c 20',
    'o 20 1 c 10', // cycle 10 ⇄ 20
    'o 30 1 8',
    'o 40 1 4 30',
    'o 50 1 10',
    'r 10 1 1', // pinned local
    'r 10 1 0', // the same object again, unpinned
    'r 40 3 2', // weak handle: 40 → 30 only weakly held
    'r 50 4 1 7', // pinned static in T7
    'r 20 4 4 7', // interior static in T7
    'r 30 9 0', // unknown kind
    't 1 Node',
    't 7 My.Statics',
    'c app.exe',
  ].join('\r\n');

  it('builds pinned, weak, static-holder and other categories', async () => {
    const g = await readCfHeapLog(source(log));
    expect(rootView(g)).toEqual({
      '[local vars]': ['0x10'],
      '[static vars]': ['[static vars of My.Statics]'],
      '[other roots]': ['0x30'],
      '[pinned local vars]': ['0x10'],
      '[pinned static vars]': ['[static vars of My.Statics]'],
      '[weak GC handles]': ['0x40'],
    });
    const weak = children(g, g.rootIndex).find((c) => nameOf(g, c) === '[weak GC handles]')!;
    expect(g.nodeFlags[weak] & NODE_WEAK_EDGES).toBe(NODE_WEAK_EDGES);
    const pinned = [0x10n, 0x20n, 0x30n, 0x40n, 0x50n].filter((id) => g.nodeFlags[byId(g, id)] & NODE_PINNED);
    expect(pinned).toEqual([0x10n, 0x50n]);
    expect(g.problems.counts).toEqual({ 'malformed-record': 1 });
    expect(problemLines(g)).toEqual(['malformed-record line 12: unknown root kind 0x9; listed under [other roots]']);
  });

  it('reads 64-bit ids exactly', async () => {
    const g = await readCfHeapLog(source('a 2 x\nt 1 T\no ffff800012345678 1 10 7fffffffffffffff\no 7fffffffffffffff 1 8\nr ffff800012345678 1 0\nc x\n'));
    const a = byId(g, 0xffff800012345678n);
    expect(children(g, a).map((k) => g.address[k])).toEqual([0x7fffffffffffffffn]);
    expect(g.problems.total).toBe(0);
  });
});

describe('readCfHeapLog sections', () => {
  const multi = ['a 2 first.exe 100', 't 1 A', 'o 1 1 4', 'r 1 1 0', 'c first.exe 180', 'a 2 second domain ffffff00', 't 1 B', 'o 1 1 8', 'o 2 1 8 1', 'r 2 0 0', 'c second domain 10', ''].join('\n');

  it('reads the first section by default and others by index or name', async () => {
    const first = await readCfHeapLog(source(multi));
    expect([first.metadata.processName, first.totalSize, first.types.names[1]]).toEqual(['first.exe', 4, 'A']);
    for (const select of ['1', 'second domain']) {
      const g = await readCfHeapLog(source(multi), { select });
      expect([g.metadata.processName, g.totalSize, g.types.names[1]]).toEqual(['second domain', 16, 'B']);
      // the tick counter wrapped: 0xffffff00 → 0x10 is 0x110 ms
      expect(g.metadata.extra).toEqual({ appDomain: 'second domain', startTimestampMs: 0xffffff00, endTimestampMs: 0x10, durationMs: 0x110, sectionIndex: 1, sectionCount: 2 });
      expect(g.problems.total).toBe(0);
    }
  });

  it('lists every section', async () => {
    expect(await listCfHeapLogSections(source(multi))).toEqual([
      { index: 0, name: 'first.exe', startMs: 0x100, endMs: 0x180, objects: 1 },
      { index: 1, name: 'second domain', startMs: 0xffffff00, endMs: 0x10, objects: 2 },
    ]);
  });

  it('fails with a coded error for an unknown section and for a file without records', async () => {
    await expect(readCfHeapLog(source(multi), { select: '2' })).rejects.toMatchObject({ code: 'usage/bad-argument', message: expect.stringContaining('0: first.exe, 1: second domain') });
    await expect(readCfHeapLog(source(multi), { select: 'nope' })).rejects.toBeInstanceOf(AppError);
    await expect(readCfHeapLog(source('\n\n'))).rejects.toBeInstanceOf(FormatError);
    await expect(readCfHeapLog(source(''))).rejects.toMatchObject({ code: 'format/corrupt' });
  });

  it('honours cancellation', async () => {
    const c = new CancellationSource();
    c.cancel();
    await expect(readCfHeapLog(source(multi), { token: c.token })).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('reports progress in bytes', async () => {
    const seen: number[] = [];
    await readCfHeapLog(source(multi), { chunkSize: 16, progress: (phase, done, total) => phase === 'parse' && total === multi.length && seen.push(done) });
    expect(seen.at(-1)).toBe(multi.length);
    expect(seen.length).toBeGreaterThan(5);
  });

  it('then reports resolving the ids as its own phase, after the bytes, ending complete', async () => {
    const calls: string[] = [];
    await readCfHeapLog(source(DOC_EXAMPLE), { progress: (phase, done, total) => calls.push(`${phase} ${done}/${total}`) });
    const firstResolve = calls.findIndex((c) => c.startsWith('resolve'));
    expect(calls.slice(0, firstResolve).every((c) => c.startsWith('parse'))).toBe(true);
    // 2 objects + 3 references + 2 roots
    expect(calls.slice(firstResolve)).toEqual(['resolve 0/7', 'resolve 7/7']);
  });
});

describe('readCfHeapLog problems carry line numbers', () => {
  it('unknown letters, malformed fields, duplicates, mismatched end', async () => {
    const log = [
      'a 2 app.exe', // 1
      'x 1 2 3', // 2 unknown letter
      'obj 1 2', // 3 unknown record word
      'o 10 1', // 4 no size
      'o 11 1 zz', // 5 bad size
      'o 12 1 8 13 q9 14', // 6 bad reference: rest ignored
      'o 13 1 4',
      'o 13 1 8', // 8 duplicate id: first kept
      't 1 Node',
      't 1 Other', // 10 duplicate type
      't 2', // 11 type without name
      'r 12 1', // 12 root without flags
      'r 13 4 0', // 13 static without container
      'o 14 1 100000000', // 14 size past 32 bits
      'c other.exe', // 15 mismatched name
    ].join('\n');
    const g = await readCfHeapLog(source(log));
    expect(problemLines(g)).toEqual([
      'unknown-record line 2: unknown record "x 1 2 3"',
      'unknown-record line 3: unknown record "obj 1 2"',
      'malformed-record line 4: object record needs a hex size ("o 10 1")',
      'malformed-record line 5: object record needs a hex size ("o 11 1 zz")',
      'malformed-record line 6: reference is not a hex object id; the rest of the line was ignored ("o 12 1 8 13 q9 14")',
      'duplicate-id line 8: object 0x13 is described again; the first description is kept',
      'duplicate-id line 10: type 0x1 is described again ("Other"); the first name is kept',
      'malformed-record line 11: type 0x2 has no name',
      'malformed-record line 12: root record needs hex flags ("r 12 1")',
      'malformed-record line 13: static root without its container type id; listed directly under [static vars]',
      'size-overflow line 14: object 0x14 has size 0x100000000, past 32 bits; stored as 0',
      'malformed-record line 15: end record names "other.exe" but the section began as "app.exe"',
      'unresolved-type line 11: type 0x2 is used but never described; named "UNKNOWN 0x2"',
    ]);
    expect(g.selfSize[byId(g, 0x13n)]).toBe(4);
    expect(children(g, byId(g, 0x12n)).map((k) => g.address[k])).toEqual([0x13n]);
    expect(rootView(g)).toEqual({ '[static vars]': ['0x13'] });
  });

  it('problems come out in line order across object batches', async () => {
    const lines = ['a 2 app.exe', 't 1 T'];
    const want: string[] = [];
    for (let i = 0; i < 3000; i++) {
      if (i % 97 === 5) {
        lines.push(`o ${(i - 1).toString(16)} 1 8 ${(i + 1).toString(16)}`); // duplicate of the previous object
        want.push(`duplicate-id ${lines.length}`);
      } else if (i % 131 === 7) {
        lines.push(`o ${i.toString(16)} 1 8 x${i}`); // bad reference
        want.push(`malformed-record ${lines.length}`);
      } else {
        lines.push(`o ${i.toString(16)} 1 8 ${(i + 1).toString(16)}`);
      }
    }
    lines.push(`o ${(3000).toString(16)} 1 8`, 'r 0 1 0', 'c app.exe');
    const g = await readCfHeapLog(source(lines.join('\n')));
    // objects replaced by a duplicate are referenced but never described: reported last, by complete()
    const got = g.problems.entries.filter((p) => p.code !== 'dangling-reference' && p.code !== 'undefined-node').map((p) => `${p.code} ${/^line (\d+):/.exec(p.message)![1]}`);
    expect(want.length).toBe(54);
    expect(got).toEqual(want);
  });

  it('a missing end record and a cut-off last line are reported as truncated, and the file still opens', async () => {
    const g = await readCfHeapLog(source('a 2 app.exe\nt 1 T\no 10 1 8 20\no 20 1 8\nr 10 1 0\no 30 1 1'));
    expect(problemLines(g)).toEqual([
      'truncated line 6: the log ends inside this line ("o 30 1 1"); the partial record was ignored',
      'truncated line 6: AppDomain section #0 "app.exe" has no end record "c" (the log was cut off?)',
    ]);
    expect(g.totalSize).toBe(16);
    const next = await readCfHeapLog(source('a 2 a\no 1 1 4\na 2 b\nc b\n'));
    expect(problemLines(next)).toContain('truncated line 2: AppDomain section #0 "a" has no end record "c" (the log was cut off?)');
    expect(next.metadata.extra.sectionCount).toBe(2);
  });

  it('records before any "a" form an unnamed section; junk outside sections is reported', async () => {
    const g = await readCfHeapLog(source('hello\n\no 1 2 4\nt 2 T\nr 1 1 0\n'));
    expect(problemLines(g)).toEqual([
      'unknown-record line 1: unknown record "hello"',
      'truncated line 3: records outside any AppDomain section (no "a" record before them): read as an unnamed section',
      'truncated line 5: AppDomain section #0 (unnamed) has no end record "c" (the log was cut off?)',
    ]);
    expect([g.metadata.processName, g.totalSize, g.metadata.extra.appDomain]).toEqual([null, 4, undefined]);
  });

  it('skips a line longer than the limit', async () => {
    const long = 'o 5 1 4' + ' 6'.repeat(100);
    const g = await readCfHeapLog(source(`a 2 x\nt 1 T\n${long}\no 6 1 4\nr 6 1 0\nc x\n`), { chunkSize: 8, maxLineBytes: 64 });
    expect(problemLines(g)).toEqual(['malformed-record line 3: line is longer than 64 bytes and was skipped']);
    expect(g.totalSize).toBe(4);
  });

  it('warns about versions other than 2 and reads on', async () => {
    const g = await readCfHeapLog(source('a 3 x\nt 1 T\no 1 1 4\nc x\n'));
    expect(problemLines(g)).toEqual(['other line 1: heap log version 3; only version 2 is known, reading it as version 2']);
    expect(g.totalSize).toBe(4);
  });

  it('decodes UTF-8 names, falls back to Latin-1, and keeps blanks inside type names', async () => {
    const head = new TextEncoder().encode('a 2 Spiel\u00e4.exe\nt 1 Dictionary`2[[System.String, mscorlib]]\nt 2 ');
    const tail = new TextEncoder().encode('\no 1 1 4\no 2 2 4\nc Spiel\u00e4.exe\n');
    const bytes = new Uint8Array([...head, 0x43, 0xe9, 0x6c, ...tail]); // "Cél" in Latin-1
    const g = await readCfHeapLog(source(bytes));
    expect(g.metadata.processName).toBe('Spielä.exe');
    expect(g.types.names.slice(1, 3)).toEqual(['Dictionary`2[[System.String, mscorlib]]', 'Cél']);
    expect(g.problems.total).toBe(0);
  });
});
