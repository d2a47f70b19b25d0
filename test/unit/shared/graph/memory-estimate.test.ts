import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors.js';
import { readCfHeapLog } from '../../../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import { readGcdump } from '../../../../shared/formats/gcdump/gcdump-reader.js';
import { APP_BYTES_PER_EDGE, APP_BYTES_PER_NODE, APP_LOW_BYTES_PER_EDGE, APP_LOW_BYTES_PER_NODE, BYTES_PER_EDGE, BYTES_PER_NODE, checkMemoryBudget, estimateSnapshotBytes, preferLowMemoryAnalysis, preferLowMemoryApp } from '../../../../shared/graph/memory-estimate.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { currentFile } from '../formats/gcdump/hand-built-stream.js';
import { PatternSource } from '../formats/gcdump/hostile-files.js';
import { generateCfHeapLogText } from '../../../tools/gen-cf-heaplog.js';

/**
 * memory/too-large (issue 17 item 5): a snapshot that needs more memory than the host has is one
 * coded error before anything proportional to it is allocated.
 */

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('estimateSnapshotBytes / checkMemoryBudget', () => {
  it('is the measured bytes per node and per reference', () => {
    expect([BYTES_PER_NODE, BYTES_PER_EDGE]).toEqual([64, 6]);
    expect(estimateSnapshotBytes(10_000_000, 25_000_000)).toBe(790_000_000);
  });

  it('passes at the estimate, refuses one byte below it, and does nothing without a budget', () => {
    expect(() => checkMemoryBudget('a.gcdump', 1000, 2000, () => ({ availableBytes: 76_000, source: 'test' }))).not.toThrow();
    expect(() => checkMemoryBudget('a.gcdump', 1000, 2000, undefined)).not.toThrow();
    let e: unknown;
    try {
      checkMemoryBudget('a.gcdump', 1000, 2000, () => ({ availableBytes: 75_999, source: 'test' }));
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('memory/too-large');
    expect((e as AppError).message).toBe('a.gcdump needs about 74.2 KB of memory to open (1,000 nodes, about 2,000 references), but only 74.2 KB is available (test)');
    expect((e as AppError).detail).toEqual({ estimateBytes: 76_000, availableBytes: 75_999, nodes: 1000, edges: 2000, limit: 'test' });
  });

  it('estimates the app’s fast plan higher, and refuses an app tab only when its low-memory plan does not fit', () => {
    expect([APP_BYTES_PER_NODE, APP_BYTES_PER_EDGE]).toEqual([105, 10]);
    expect([APP_LOW_BYTES_PER_NODE, APP_LOW_BYTES_PER_EDGE]).toEqual([72, 8]);
    expect(estimateSnapshotBytes(10_000_000, 25_000_000, 'app')).toBe(1_300_000_000);
    expect(estimateSnapshotBytes(10_000_000, 25_000_000, 'app-low')).toBe(920_000_000);
    expect(estimateSnapshotBytes(10_000_000, 25_000_000, 'cli')).toBe(790_000_000);
    // 1000 × 72 + 2000 × 8 = 88,000 for the low plan (the fast plan's 125,000 need not fit)
    const app = (availableBytes: number) => () => ({ availableBytes, source: 'test', path: 'app' as const });
    expect(() => checkMemoryBudget('a.gcdump', 1000, 2000, app(88_000))).not.toThrow();
    expect(preferLowMemoryApp(1000, 2000, 88_000)).toBe(true);
    expect(() => checkMemoryBudget('a.gcdump', 1000, 2000, () => ({ availableBytes: 76_000, source: 'test', path: 'cli' }))).not.toThrow();
    let e: unknown;
    try {
      checkMemoryBudget('a.gcdump', 1000, 2000, app(87_999));
    } catch (err) {
      e = err;
    }
    expect((e as AppError).code).toBe('memory/too-large');
    expect((e as AppError).detail).toEqual({ estimateBytes: 88_000, availableBytes: 87_999, nodes: 1000, edges: 2000, limit: 'test' });
  });

  it('writes gigabytes with one decimal', () => {
    expect(() => checkMemoryBudget('big.gcdump', 100_000_000, 250_000_000, () => ({ availableBytes: 4 * 2 ** 30, source: 'available system memory' }))).toThrow(
      'big.gcdump needs about 7.4 GB of memory to open (100,000,000 nodes, about 250,000,000 references), but only 4.0 GB is available (available system memory)',
    );
  });
});

describe('the .gcdump reader asks for its memory before allocating', () => {
  // The tiny hand-built file: 3 nodes, a 12-byte blob → 16 expected references (the minimum).
  const TINY = 3 * BYTES_PER_NODE + 16 * BYTES_PER_EDGE;

  it('opens the tiny file with exactly its estimate available and refuses it with one byte less', async () => {
    const g = await readGcdump(new MemoryByteSource(currentFile(), 'tiny.gcdump'), { memoryBudget: () => ({ availableBytes: TINY, source: 'test' }) });
    expect(g.nodeCount).toBe(3);
    const e = await rejection(readGcdump(new MemoryByteSource(currentFile(), 'tiny.gcdump'), { memoryBudget: () => ({ availableBytes: TINY - 1, source: 'test' }) }));
    expect(e.code).toBe('memory/too-large');
    expect(e.detail).toEqual({ estimateBytes: 288, availableBytes: 287, nodes: 3, edges: 16, limit: 'test' });
  });

  /**
   * A forged file claiming `claim` nodes that it backs with as many (sparse, zero) offsets and
   * addresses, so it passes the reader's "the file describes every node" check: 12 bytes per
   * node never stored (PatternSource), and a node blob of `blob` zero bytes.
   */
  function forged(claim: number, blob: number): PatternSource {
    const bytes = currentFile();
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    let at = 0;
    while (!(dv.getInt32(at, true) === 3 && dv.getInt32(at + 4, true) === 2 && dv.getInt32(at + 8, true) === 6)) at++;
    const head = bytes.slice(0, at + 4);
    new DataView(head.buffer).setInt32(at, claim, true);
    const i32 = (v: number) => new Uint8Array(new Int32Array([v]).buffer);
    return new PatternSource([head, { fill: 0, length: 4 * claim }, i32(blob), { fill: 0, length: blob }, i32(claim), { fill: 0, length: 8 * claim }, Uint8Array.of(6)], 'forged.gcdump');
  }

  it('refuses a forged 700M-node claim with the estimate and the budget, after a few small reads', async () => {
    const source = forged(700_000_000, 2_000_000_000);
    const before = process.memoryUsage().arrayBuffers;
    const hints: number[][] = [];
    const e = await rejection(readGcdump(source, { sizeHint: (n, m) => hints.push([n, m]), memoryBudget: () => ({ availableBytes: 16 * 2 ** 30, source: 'test' }) }));
    expect(e.code).toBe('memory/too-large');
    // 700M × 64 + (2,000,000,000 / 3 = 666,666,666 expected references) × 6
    expect(e.detail).toEqual({ estimateBytes: 48_799_999_996, availableBytes: 16 * 2 ** 30, nodes: 700_000_000, edges: 666_666_666, limit: 'test' });
    expect(e.message).toBe('forged.gcdump needs about 45.4 GB of memory to open (700,000,000 nodes, about 666,666,666 references), but only 16.0 GB is available (test)');
    expect(hints).toEqual([]); // refused before the size hint, which lets the app allocate
    expect(source.bytesRead).toBeLessThan(9 * 1024 * 1024); // the header window and look-aheads
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024); // not the 2.8 GB of offsets
  });
});

describe('the CF heap log reader asks once its parse knows the counts, before building the graph', () => {
  it('refuses with one byte less than the estimate of the counts it hints, and opens with exactly it', async () => {
    const { text, sections } = generateCfHeapLogText({ objects: 1500, seed: 21 });
    const bytes = new TextEncoder().encode(text);
    const hints: number[][] = [];
    await readCfHeapLog(new MemoryByteSource(bytes, 'cf.log'), { sizeHint: (n, m) => hints.push([n, m]) });
    const [[nodes, edges]] = hints;
    // objects + 1/1000 + 64 nodes of room; the section's objects are the generator's
    expect(nodes).toBe(sections[0].objects + Math.ceil(sections[0].objects / 1000) + 64);
    const need = nodes * BYTES_PER_NODE + edges * BYTES_PER_EDGE;
    const e = await rejection(readCfHeapLog(new MemoryByteSource(bytes, 'cf.log'), { memoryBudget: () => ({ availableBytes: need - 1, source: 'test' }) }));
    expect(e.code).toBe('memory/too-large');
    expect(e.detail).toEqual({ estimateBytes: need, availableBytes: need - 1, nodes, edges, limit: 'test' });
    const g = await readCfHeapLog(new MemoryByteSource(bytes, 'cf.log'), { memoryBudget: () => ({ availableBytes: need, source: 'test' }) });
    expect(g.nodeCount).toBeGreaterThan(sections[0].objects);
  });
});

describe('report\'s low-memory analysis mode', () => {
  it('is chosen only when the estimate takes more than half of the memory available', () => {
    // 1,000 nodes and 2,000 references: 64,000 + 12,000 = 76,000 bytes estimated
    expect(estimateSnapshotBytes(1000, 2000)).toBe(76_000);
    expect(preferLowMemoryAnalysis(1000, 2000, 152_000)).toBe(false);
    expect(preferLowMemoryAnalysis(1000, 2000, 151_999)).toBe(true);
    expect(preferLowMemoryAnalysis(10_000_000, 25_000_000, 24 * 2 ** 30)).toBe(false);
  });

  it('is chosen for a tab of the app when the app’s estimate takes more than half of the memory available', () => {
    // 1,000 nodes and 2,000 references: 105,000 + 20,000 = 125,000 bytes estimated for the app
    expect(preferLowMemoryApp(1000, 2000, 250_000)).toBe(false);
    expect(preferLowMemoryApp(1000, 2000, 249_999)).toBe(true);
    // the CLI's estimate of the same graph is lower: its rule keeps the fast mode there
    expect(preferLowMemoryAnalysis(1000, 2000, 249_999)).toBe(false);
    // the synthetic 10M heap (1.3 GB) on a 24 GB machine: fast; 100M objects, 250M references (13 GB): low
    expect(preferLowMemoryApp(10_000_000, 25_000_000, 22 * 2 ** 30)).toBe(false);
    expect(preferLowMemoryApp(100_003_007, 250_050_632, 22 * 2 ** 30)).toBe(true);
  });
});
