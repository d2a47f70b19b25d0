import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors.js';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import type { ByteSource } from '../../../../../shared/util/byte-source.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { fixtureBytes } from './gcdump-test-utils.js';

// The address table is read beside the node blob (memory-graph-reader.ts AddressRead): it starts
// before the blob is done, lands in the same column, and a failure in the blob stops it before
// the reader returns, so nothing reads the file after that.

const bytes = fixtureBytes('perfview_test1');
const CHUNK = 256; // small windows: the blob and the table each take many reads

/** Where the address table's entries start: the first 16 bytes of the address column, found in the file. */
function tableStart(file: Uint8Array, address: BigUint64Array): number {
  const want = new Uint8Array(address.buffer, address.byteOffset, 16);
  for (let at = 0; at + 16 <= file.length; at++) {
    let k = 0;
    while (k < 16 && file[at + k] === want[k]) k++;
    if (k === 16) return at;
  }
  throw new Error('address table not found');
}

/** Every read's offset, in the order they were asked for; `fail(offset, nth)` may reject one. */
class LoggingSource implements ByteSource {
  readonly reads: number[] = [];
  readonly inner: MemoryByteSource;
  constructor(
    file: Uint8Array,
    private readonly fail: (offset: number, nth: number) => boolean = () => false,
  ) {
    this.inner = new MemoryByteSource(file, 'logged.gcdump');
  }
  get size(): number {
    return this.inner.size;
  }
  get name(): string {
    return this.inner.name;
  }
  async read(offset: number, length: number): Promise<Uint8Array> {
    this.reads.push(offset);
    if (this.fail(offset, this.reads.length)) throw new AppError('io/read-failed', `read at ${offset} failed (test)`);
    return this.inner.read(offset, length);
  }
}

describe.skipIf(!bytes)(`the address table read beside the node blob${bytes ? '' : ' (skipped: fixture perfview_test1 missing)'}`, () => {
  it('starts before the blob is decoded and gives the addresses a plain read gives', async () => {
    const plain = await readGcdump(new MemoryByteSource(bytes!, 'plain.gcdump'));
    const source = new LoggingSource(bytes!);
    const g = await readGcdump(source, { chunkSize: CHUNK });
    expect(g.address).toEqual(plain.address);
    expect(g.nodeCount).toBeGreaterThan(CHUNK); // the table takes several reads
    const table = tableStart(bytes!, g.address);
    const firstTableRead = source.reads.findIndex((o) => o >= table);
    // a blob window read after the table's first read (not the table's count, 4 bytes before it)
    expect(source.reads.slice(firstTableRead).some((o) => o < table - 4)).toBe(true);
  });

  it('stops when the blob fails, and nothing reads the file after the reader has failed', async () => {
    const plain = await readGcdump(new MemoryByteSource(bytes!, 'plain.gcdump'));
    const table = tableStart(bytes!, plain.address);
    const tableReads = Math.ceil((8 * plain.nodeCount) / (CHUNK & ~7));
    // the 5th blob window after the table's first read fails
    let tableSeen = false;
    let blobAfter = 0;
    const source = new LoggingSource(bytes!, (offset) => {
      if (offset >= table) tableSeen = true;
      else if (tableSeen && offset < table - 4) blobAfter++;
      return blobAfter === 5 && offset < table - 4;
    });
    await expect(readGcdump(source, { chunkSize: CHUNK })).rejects.toMatchObject({ code: 'io/read-failed' });
    const readsAtFailure = source.reads.length;
    await new Promise((r) => setTimeout(r, 20));
    expect(source.reads.length).toBe(readsAtFailure);
    // and it stopped early rather than reading the rest of the table first
    expect(source.reads.filter((o) => o >= table).length).toBeLessThan(tableReads);
  });
});
