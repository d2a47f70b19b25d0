import { describe, expect, it } from 'vitest';
import { FormatError } from '../../../../../shared/errors.js';
import { ByteCursor } from '../../../../../shared/formats/gcdump/byte-cursor.js';
import { FastSerializationReader, UnknownObject } from '../../../../../shared/formats/gcdump/fast-serialization.js';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { CancellationSource } from '../../../../../shared/util/cancellation.js';
import { NO_PROGRESS } from '../../../../../shared/util/progress.js';
import { currentFile } from './hand-built-stream.js';
import { deadlineToken, nestedPrivateObjects } from './hostile-files.js';

/**
 * Hostile .gcdump shapes (issue 13): each ends in one coded error or opens, with work linear in
 * the file and memory bounded by what the file really holds. The timeouts only catch a hang.
 */

async function failure(p: Promise<unknown>): Promise<FormatError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(FormatError);
  return e as FormatError;
}

describe('hostile .gcdump files: work linear in the file', () => {
  it('reads nested private objects (k = 64, 8 levels) once each', async () => {
    const bytes = nestedPrivateObjects(64, 8);
    expect(bytes.length).toBeLessThan(4000);
    // 64-byte windows: every jump back to a referenced object refills, which checks the token.
    const e = await failure(readGcdump(new MemoryByteSource(bytes, 'nested.gcdump'), { token: deadlineToken(10_000), chunkSize: 64 }));
    expect(e.code).toBe('format/corrupt');
    expect(e.message).toBe('nested.gcdump: the first object is a T8');
  }, 20_000);

  it('counts one read per definition: the entry, T0…T8 and the 8 × 64 nested objects', async () => {
    const bytes = nestedPrivateObjects(64, 8);
    const cur = new ByteCursor(new MemoryByteSource(bytes), bytes.length, deadlineToken(10_000), NO_PROGRESS, 64);
    const fs = new FastSerializationReader(cur, {});
    await fs.readHeader();
    const entry = await fs.readObject();
    expect(entry).toEqual(new UnknownObject('T8'));
    expect(fs.definitionsRead).toBe(1 + 9 + 8 * 64);
    expect(cur.pos).toBe(24 + 7); // after the entry object, which only referred to T8
  }, 20_000);

  it('observes cancellation between object definitions', async () => {
    const bytes = nestedPrivateObjects(4, 3);
    const cancel = new CancellationSource();
    const cur = new ByteCursor(new MemoryByteSource(bytes), bytes.length, cancel.token, NO_PROGRESS);
    await cur.need(bytes.length); // the whole file in the window: no refill would check the token
    cancel.cancel('stop');
    const fs = new FastSerializationReader(cur, {});
    cur.seek(24);
    const e = await fs.readObject().catch((err: unknown) => err);
    expect((e as { code?: string }).code).toBe('cancelled');
    expect(fs.definitionsRead).toBe(0);
  });
});

describe('hostile .gcdump files: names are capped', () => {
  it('cuts a 16M-character type name to 16384 characters plus "…", with one problem', async () => {
    const long = 'A'.repeat(16 * 1024 * 1024);
    const g = await readGcdump(new MemoryByteSource(currentFile({ fooName: long }), 'long.gcdump'));
    expect(g.types.names[2]).toBe(`${'A'.repeat(16384)}…`);
    expect(g.types.names[2].length).toBe(16385);
    expect(g.nodeCount).toBe(3);
    expect(g.problems.counts).toEqual({ 'malformed-record': 1 });
    expect(g.problems.entries[0].message).toBe(
      '1 over-long string(s) were cut and end in "…" (names are cut at 16384 characters, the collection log at 1048576; the longest had 16777216)',
    );
  }, 30_000);

  it('cuts module names without splitting a surrogate pair, and keeps names at the cap as they are', async () => {
    const module = `${'m'.repeat(16383)}\u{1F600}tail`; // the pair would straddle the cap
    const g = await readGcdump(new MemoryByteSource(currentFile({ fooName: 'B'.repeat(16384), fooModule: module }), 'module.gcdump'));
    expect(g.types.names[2]).toBe('B'.repeat(16384));
    expect(g.types.modules[2]).toBe(`${'m'.repeat(16383)}…`);
    expect(g.problems.counts).toEqual({ 'malformed-record': 1 });
  });
});
