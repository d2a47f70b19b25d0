import { describe, expect, it } from 'vitest';
import { dumpRecordsToGraph } from '../../../../../shared/formats/dump/dump-graph.js';
import { decodeDumpStream } from '../../../../../shared/formats/dump/dump-stream.js';
import type { TypeHistogram } from '../../../../../shared/formats/dump/type-histogram.js';
import { SnapshotSession } from '../../../../../shared/session/snapshot-session.js';
import { PreliminaryTypes } from '../../../../../shared/session/preliminary-types.js';
import type { FileEntry, SessionId } from '../../../../../shared/ipc/contract.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../../helpers/dump-stream-writer.js';
import { codeOf } from '../../../../helpers/error-code.js';

/**
 * TYPE_HISTOGRAM (0x0d): the helper's stats pass before the walk. The decoder hands it out through
 * its callback while the stream goes on, leaves every other decoded record as without it, and
 * rejects a hostile or cut-off record with the stream's codes; the rows built from it
 * (PreliminaryTypes) equal the parsed session's rows.
 */
const decode = (bytes: Uint8Array, sink?: (h: TypeHistogram) => void) => decodeDumpStream(new MemoryByteSource(bytes, 'test.stream'), undefined, undefined, undefined, sink);

/** Types Foo (2 objects, 24 + 40 bytes), Bar[] (none: not listed), Baz (1 × 100,000 bytes, above 2^32 in the sum test below). */
function stream(histogram: boolean): DumpStreamWriter {
  const w = new DumpStreamWriter();
  w.info('pointerSize', '8').type(0, 'Foo', 'app.dll').type(1, 'Bar[]').type(2, 'Baz');
  if (histogram) w.typeHistogram([[0, 2, 64], [2, 1, 100_000]]);
  w.object(0x1000, 0, 24, 0, [[0x2000, 'next']]);
  w.object(0x2000, 0, 40, 2);
  w.object(0x3000, 2, 100_000, 3);
  w.root(1, 'App', 'Cache', 0x1000);
  return w.end();
}

const FILE = { name: 'test.stream' } as FileEntry;
const ID = 's-test' as SessionId;

describe('TYPE_HISTOGRAM record', () => {
  it('is handed out once with exact counts, bytes, names and modules; the rest decodes as without it', async () => {
    const got: TypeHistogram[] = [];
    const r = await decode(stream(true).finish(), (h) => got.push(h));
    expect(got).toHaveLength(1);
    expect(Array.from(got[0].count)).toEqual([2, 0, 1]);
    expect(Array.from(got[0].bytes)).toEqual([64, 0, 100_000]);
    expect(got[0].typeNames).toEqual(['Foo', 'Bar[]', 'Baz']);
    expect(got[0].typeModules).toEqual(['app.dll', null, null]);
    const plain = await decode(stream(false).finish());
    expect(r.objectCount).toBe(3);
    expect(Array.from(r.objectType)).toEqual(Array.from(plain.objectType));
    expect(Array.from(r.objectSize)).toEqual(Array.from(plain.objectSize));
    expect(Array.from(r.referenceTarget)).toEqual(Array.from(plain.referenceTarget));
    expect(r.typeNames).toEqual(plain.typeNames);
  });

  it('gives the same type rows before the graph as the parsed session does', async () => {
    let h: TypeHistogram | null = null;
    const r = await decode(stream(true).finish(), (x) => (h = x));
    const session = new SnapshotSession(dumpRecordsToGraph(r), { sessionId: ID, file: FILE, parseMs: 0 });
    const early = new PreliminaryTypes(h!, { sessionId: ID, file: FILE, parseMs: 0 });
    for (const key of ['shallowSize', 'count', 'type', 'retainedSize'] as const) {
      const req = { sort: { key, dir: 'desc' as const }, start: 0, end: 10 };
      const a = early.typeRows(req);
      const b = session.typeRows(req);
      expect(a.total).toBe(2);
      expect(a).toEqual(b);
    }
    const s = early.summary();
    expect(s.preliminary).toBe(true);
    expect(s.objects).toEqual({ count: 3, size: 100_064 });
    expect(s.objects).toEqual(session.summary().objects);
    expect(s.typeCount).toBe(session.summary().typeCount);
    expect(s.analysis.state).toBe('pending');
    expect(session.summary().preliminary).toBeUndefined();
  });

  it('keeps sums past 2^32 exact', async () => {
    const w = new DumpStreamWriter();
    w.type(0, 'Big').typeHistogram([[0, 3, 3 * 2 ** 31 + 5]]);
    const got: TypeHistogram[] = [];
    await codeOf(decode(w.finish(), (h) => got.push(h)));
    expect(got[0].bytes[0]).toBe(3 * 2 ** 31 + 5);
  });

  it('rejects a hostile record with format/corrupt', async () => {
    const base = () => new DumpStreamWriter().type(0, 'Foo').type(1, 'Bar');
    const cases: [string, DumpStreamWriter][] = [
      ['more types than defined', base().typeHistogram([[0, 1, 8], [1, 1, 8], [0, 1, 8]])],
      ['an undefined type id', base().typeHistogram([[2, 1, 8]])],
      ['a type counted twice', base().typeHistogram([[1, 1, 8], [1, 2, 8]])],
      ['zero objects', base().typeHistogram([[0, 0, 0]])],
      ['more than 2^32 − 1 objects', base().typeHistogram([[0, 2 ** 32, 8]])],
      ['a second histogram', base().typeHistogram([[0, 1, 8]]).typeHistogram([[0, 1, 8]])],
      ['a histogram after an object', base().object(0x1000, 0, 24, 0).typeHistogram([[0, 1, 24]])],
    ];
    for (const [what, w] of cases) expect(await codeOf(decode(w.end().finish())), what).toBe('format/corrupt');
    // the same stream with a sane record decodes
    expect(await codeOf(decode(base().typeHistogram([[0, 1, 24]]).object(0x1000, 0, 24, 0).end().finish()))).toBe('no error');
  });

  it('rejects every cut-off prefix of the record with format/truncated, before handing anything out', async () => {
    const head = new DumpStreamWriter().type(0, 'Foo').type(1, 'Bar').finish().length;
    const whole = new DumpStreamWriter().type(0, 'Foo').type(1, 'Bar').typeHistogram([[0, 1, 24], [1, 2, 48]]).finish();
    for (let cut = head + 1; cut < whole.length; cut++) {
      let called = false;
      expect(await codeOf(decode(whole.slice(0, cut), () => (called = true))), `cut at ${cut}`).toBe('format/truncated');
      expect(called).toBe(false);
    }
  });
});
