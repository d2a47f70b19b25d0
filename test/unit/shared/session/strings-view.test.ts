import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors.js';
import { readDumpStream } from '../../../../shared/formats/dump/dump-graph.js';
import type { FileEntry, FileToken, SessionId, StringSortKey } from '../../../../shared/ipc/contract.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../helpers/dump-stream-writer.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { checkRequest } from '../../../../electron/host/request-guards.js';

// The Strings view's worker queries (strings-view.ts through SnapshotSession): windows, sorts,
// filter, min count, the instances of one value and the CSV export, on a hand-built dump stream.

const FILE: FileEntry = { token: 'tok' as FileToken, name: 'p.dmp', displayPath: '/x/p.dmp', size: 1, modifiedMs: 0, source: 'path', formatHint: null, exists: true };

function session(g: HeapGraph): SnapshotSession {
  const s = new SnapshotSession(g, { sessionId: 's1' as SessionId, file: FILE, parseMs: 1 });
  s.runAnalysis();
  return s;
}

/** Object[] → "a" ×3 (30 B), "Bb" ×2 (32 B), "c" ×1 (28 B), "zz" ×4 (32 B); one more "a" unreachable. */
async function dump(): Promise<HeapGraph> {
  const w = new DumpStreamWriter();
  w.type(0, 'System.Object[]').type(1, 'System.String');
  const strings: [number, number, string, number, number][] = [
    [0x2000, 0, 'a', 1, 30],
    [0x3000, 1, 'Bb', 2, 32],
    [0x4000, 0, 'a', 1, 30],
    [0x5000, 2, 'c', 1, 28],
    [0x6000, 3, 'zz', 2, 32],
    [0x7000, 3, 'zz', 2, 32],
    [0x8000, 3, 'zz', 2, 32],
    [0x9000, 3, 'zz', 2, 32],
    [0xa000, 1, 'Bb', 2, 32],
    [0xb000, 0, 'a', 1, 30],
  ];
  w.object(0x1000, 0, 104, 2, strings.map(([a]) => [a, null]));
  const seen = new Set<number>();
  for (const [addr, v, text, len, size] of strings) {
    w.object(addr, 1, size, 2).stringValue(addr, v, seen.has(v) ? null : text, len);
    seen.add(v);
  }
  w.object(0xc000, 1, 30, 0).stringValue(0xc000, 0, null, 1);
  w.root(1, 'App', 'Items', 0x1000);
  return readDumpStream(new MemoryByteSource(w.end().finish(), 'p.stream'));
}

const rowsOf = (s: SnapshotSession, key: StringSortKey, dir: 'asc' | 'desc', extra: { filter?: string; minCount?: number } = {}) =>
  s.stringRows({ sort: { key, dir }, start: 0, end: 100, ...extra }).rows.map((r) => `${r.value}:${r.count}:${r.totalBytes}:${r.wastedBytes}`);

describe('Strings view queries', () => {
  it('rows per value with exact counts and bytes, in every sort order; ties in first-seen order', async () => {
    const s = session(await dump());
    expect(rowsOf(s, 'wastedBytes', 'desc')).toEqual(['zz:4:128:96', 'a:3:90:60', 'Bb:2:64:32']);
    expect(rowsOf(s, 'count', 'asc')).toEqual(['Bb:2:64:32', 'a:3:90:60', 'zz:4:128:96']);
    expect(rowsOf(s, 'totalBytes', 'desc')).toEqual(['zz:4:128:96', 'a:3:90:60', 'Bb:2:64:32']);
    expect(rowsOf(s, 'value', 'asc')).toEqual(['Bb:2:64:32', 'a:3:90:60', 'zz:4:128:96']);
    expect(rowsOf(s, 'length', 'desc')).toEqual(['Bb:2:64:32', 'zz:4:128:96', 'a:3:90:60']);
    expect(rowsOf(s, 'wastedBytes', 'desc', { minCount: 1 })).toEqual(['zz:4:128:96', 'a:3:90:60', 'Bb:2:64:32', 'c:1:28:0']);
    expect(rowsOf(s, 'wastedBytes', 'desc', { minCount: 4 })).toEqual(['zz:4:128:96']);
    expect(rowsOf(s, 'wastedBytes', 'desc', { filter: 'B' })).toEqual(['Bb:2:64:32']);
    const w = s.stringRows({ sort: { key: 'wastedBytes', dir: 'desc' }, start: 1, end: 2 });
    expect({ start: w.start, end: w.end, total: w.total, value: w.rows[0].value, valueId: w.rows[0].valueId }).toEqual({ start: 1, end: 2, total: 3, value: 'a', valueId: 0 });
  });

  it('lists the reachable objects of one value as instance rows, in address order', async () => {
    const s = session(await dump());
    const w = s.stringInstances({ valueId: 0, start: 0, end: 10 });
    expect(w.total).toBe(3);
    expect(w.rows.map((r) => [r.address, r.size, r.reachable])).toEqual([
      ['0x2000', 30, true],
      ['0x4000', 30, true],
      ['0xb000', 30, true],
    ]);
    expect(s.stringInstances({ valueId: 3, start: 1, end: 3 }).rows.map((r) => r.address)).toEqual(['0x7000', '0x8000']);
    expect(() => s.stringInstances({ valueId: 9, start: 0, end: 1 })).toThrow(/no string value 9/);
  });

  it('the Instances rows of System.String filtered to one value (valueId): reachable or not, with the other filters, sorts and the CSV', async () => {
    const s = session(await dump());
    const rows = (extra: { filter?: string; generation?: number } = {}, valueId = 0, dir: 'asc' | 'desc' = 'asc') =>
      s.objectRows({ typeIndex: 1, sort: { key: 'address', dir }, start: 0, end: 20, valueId, ...extra }).rows.map((r) => `${r.address}:${r.reachable}`);
    // "a": three reachable copies and the unreachable one at 0xc000 (the Strings row counts 3)
    expect(rows()).toEqual(['0x2000:true', '0x4000:true', '0xb000:true', '0xc000:false']);
    expect(rows({}, 0, 'desc')).toEqual(['0xc000:false', '0xb000:true', '0x4000:true', '0x2000:true']);
    expect(rows({}, 3)).toEqual(['0x6000:true', '0x7000:true', '0x8000:true', '0x9000:true']);
    expect(rows({ filter: 'b0' })).toEqual(['0xb000:true']);
    expect(rows({ generation: 0 })).toEqual(['0xc000:false']);
    expect(rows({ filter: 'zz' })).toEqual([]);
    // another type's objects hold no value
    expect(s.objectRows({ typeIndex: 0, sort: { key: 'size', dir: 'desc' }, start: 0, end: 20, valueId: 0 }).total).toBe(0);
    expect(() => s.objectRows({ typeIndex: 1, sort: { key: 'size', dir: 'desc' }, start: 0, end: 1, valueId: 9 })).toThrow(/no string value 9/);
    const e = s.exportCsv({ sessionId: 's1' as SessionId, view: 'objects', typeIndex: 1, sort: { key: 'address', dir: 'asc' }, valueId: 1 });
    const [header, ...lines] = [...e.chunks].join('').split('\r\n').slice(0, -1);
    const at = header.split(',').indexOf('address');
    expect(lines.map((l) => l.split(',')[at])).toEqual(['0x3000', '0xa000']);
    expect(checkRequest('objectRows', { sessionId: 's1', typeIndex: 1, sort: { key: 'size', dir: 'desc' }, start: 0, end: 10, valueId: 2 })).toBeNull();
    expect(checkRequest('objectRows', { sessionId: 's1', typeIndex: 1, sort: { key: 'size', dir: 'desc' }, start: 0, end: 10, valueId: 1.5 })).toMatch(/^bad request/);
    expect(checkRequest('exportCsv', { sessionId: 's1', view: 'objects', typeIndex: 1, sort: { key: 'size', dir: 'desc' }, valueId: 2 })).toBeNull();
    expect(checkRequest('exportCsv', { sessionId: 's1', view: 'objects', typeIndex: 1, sort: { key: 'size', dir: 'desc' }, valueId: -2 })).toMatch(/^bad request/);
  });

  it('exports every row as the CLI writes them (`heapscope strings --format csv`)', async () => {
    const s = session(await dump());
    const e = s.exportCsv({ sessionId: 's1' as SessionId, view: 'strings', sort: { key: 'wastedBytes', dir: 'desc' }, minCount: 2 });
    expect(e.fileName).toBe('p-strings.csv');
    expect([...e.chunks].join('')).toBe('count,wastedBytes,totalBytes,length,value,truncated\r\n4,96,128,2,zz,false\r\n3,60,90,1,a,false\r\n2,32,64,2,Bb,false\r\n');
  });

  it('a session without string contents answers strings/needs-dump', () => {
    const t = tinyGraph((b) => {
      b.root('[static vars]').ref('s');
      b.node('s', 30, 'System.String');
    });
    const s = session(t.graph);
    let code = '';
    try {
      s.stringRows({ sort: { key: 'count', dir: 'desc' }, start: 0, end: 10 });
    } catch (e) {
      code = e instanceof AppError ? e.code : 'other';
    }
    expect(code).toBe('strings/needs-dump');
  });

  it('the request guards accept the view\'s requests and refuse malformed ones', () => {
    expect(checkRequest('stringRows', { sessionId: 's1', sort: { key: 'wastedBytes', dir: 'desc' }, start: 0, end: 100, filter: 'x', minCount: 1 })).toBeNull();
    expect(checkRequest('stringRows', { sessionId: 's1', sort: { key: 'size', dir: 'desc' }, start: 0, end: 100 })).toMatch(/^bad request/);
    expect(checkRequest('stringRows', { sessionId: 's1', sort: { key: 'count', dir: 'desc' }, start: 0, end: 100, minCount: 0 })).toMatch(/^bad request/);
    expect(checkRequest('stringInstances', { sessionId: 's1', valueId: 3, start: 0, end: 10 })).toBeNull();
    expect(checkRequest('stringInstances', { sessionId: 's1', valueId: -1, start: 0, end: 10 })).toMatch(/^bad request/);
    expect(checkRequest('exportCsv', { sessionId: 's1', view: 'strings', sort: { key: 'count', dir: 'asc' }, minCount: 2 })).toBeNull();
  });
});
