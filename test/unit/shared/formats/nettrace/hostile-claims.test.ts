import { describe, expect, it } from 'vitest';
import { AppError, FormatError } from '../../../../../shared/errors.js';
import { readNetTraceEvents } from '../../../../../shared/formats/nettrace/read-nettrace-events.js';
import { readNetTraceSnapshot } from '../../../../../shared/formats/nettrace/read-nettrace-snapshot.js';
import type { ByteSource } from '../../../../../shared/util/byte-source.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { sampleHeap, writeHeapTrace } from '../../../../helpers/heap-trace.js';

/**
 * Claimed sizes in EventPipe traces (issue 13): a block may claim up to 64 MiB; a file that ends
 * long before must fail as format/truncated without allocating the claim.
 */

/** The sample trace with its first MetadataBlock claiming `claim` bytes, cut 100 bytes later. */
function claimingBlock(claim: number): Uint8Array {
  const bytes = writeHeapTrace(sampleHeap());
  const name = new TextEncoder().encode('MetadataBlock');
  let at = 0;
  while (!name.every((b, k) => bytes[at + k] === b)) at++;
  const sizeAt = at + name.length + 1; // after the name and the type's EndObject
  new DataView(bytes.buffer, bytes.byteOffset).setInt32(sizeAt, claim, true);
  return bytes.slice(0, sizeAt + 100);
}

/** Reads in 16-byte pieces and records the largest ArrayBuffer total seen between reads. */
class WatchedSource implements ByteSource {
  readonly size: number;
  peak = 0;
  private readonly inner: MemoryByteSource;
  constructor(bytes: Uint8Array) {
    this.inner = new MemoryByteSource(bytes, 'claim.nettrace');
    this.size = bytes.length;
  }
  get name(): string {
    return this.inner.name;
  }
  async read(offset: number, length: number): Promise<Uint8Array> {
    this.peak = Math.max(this.peak, process.memoryUsage().arrayBuffers);
    return this.inner.read(offset, length);
  }
}

describe('nettrace block claims', () => {
  it('a file claiming a 60 MiB block in its first 100 bytes ends as format/truncated without allocating it', async () => {
    const claim = 60 * 1024 * 1024;
    const source = new WatchedSource(claimingBlock(claim));
    const before = process.memoryUsage().arrayBuffers;
    const e = await readNetTraceEvents(source, { onEvent: () => {} }, { chunkSize: 16 }).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).code).toBe('format/truncated');
    expect(source.peak - before).toBeLessThan(claim / 4);
  });

  it('reads the same graph whether the size is known or not (a live stream)', async () => {
    const bytes = writeHeapTrace(sampleHeap());
    const known = await readNetTraceSnapshot(new MemoryByteSource(bytes, 'sample.nettrace'));
    const inner = new MemoryByteSource(bytes, 'stream');
    const unknown = await readNetTraceSnapshot({ size: -1, name: 'stream', read: (o, n) => inner.read(o, n) });
    expect([known.nodeCount, known.edgeCount, known.totalSize]).toEqual([unknown.nodeCount, unknown.edgeCount, unknown.totalSize]);
    expect(Array.from(known.edgeTarget)).toEqual(Array.from(unknown.edgeTarget));
    expect(known.nodeCount).toBe(17);
  });
});

describe('nettrace generated claims', () => {
  it('every 4-byte position of a small heap trace set to a huge claim ends in a coded error or a graph, with bounded allocation', async () => {
    const original = writeHeapTrace(sampleHeap());
    // 0x7fffffff and -2 (0xfffffffe as u32) at alternate positions: each field gets both, shifted
    // by a byte, in half the cases of trying both everywhere.
    const outcomes: Record<string, number> = {};
    let peak = 0;
    for (let at = 0; at + 4 <= original.length; at++) {
      {
        const claim = at % 2 === 0 ? 0x7fffffff : -2;
        const bytes = original.slice();
        new DataView(bytes.buffer).setInt32(at, claim, true);
        const before = process.memoryUsage().arrayBuffers;
        try {
          const g = await readNetTraceSnapshot(new MemoryByteSource(bytes, 'claims.nettrace'));
          outcomes.graph = (outcomes.graph ?? 0) + 1;
          expect(g.nodeCount).toBeLessThan(bytes.length);
        } catch (e) {
          expect(e, `claim ${claim} at ${at}`).toBeInstanceOf(AppError);
          const code = (e as AppError).code;
          expect(code, `claim ${claim} at ${at}`).toMatch(/^format\//);
          outcomes[code] = (outcomes[code] ?? 0) + 1;
        }
        const grew = process.memoryUsage().arrayBuffers - before;
        peak = Math.max(peak, grew);
      }
    }
    console.info(`nettrace generated claims (${original.length} bytes): ${JSON.stringify(outcomes)}, largest ArrayBuffer growth in one case ${peak} bytes`);
    expect(peak).toBeLessThan(16 * 1024 * 1024);
  }, 120_000);
});
