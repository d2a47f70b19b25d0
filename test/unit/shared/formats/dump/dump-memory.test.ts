import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors.js';
import { readDumpStream } from '../../../../../shared/formats/dump/dump-graph.js';
import type { MemoryBudget } from '../../../../../shared/graph/memory-estimate.js';
import { MemoryByteSource, type ByteSource } from '../../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../../helpers/dump-stream-writer.js';

/** A stream of `objects` objects, each referencing the next (the last none), after an INFO smallObjectHeapBytes. */
function heap(objects: number, smallObjectHeapBytes: number | null): DumpStreamWriter {
  const w = new DumpStreamWriter();
  w.info('pointerSize', '8');
  if (smallObjectHeapBytes !== null) w.info('smallObjectHeapBytes', String(smallObjectHeapBytes));
  w.type(0, 'Node');
  for (let i = 0; i < objects; i++) w.object(0x1000 + 32 * i, 0, 32, 0, i + 1 < objects ? [[0x1000 + 32 * (i + 1), 'next']] : []);
  w.root(3, null, null, 0x1000);
  return w.end();
}

/** A source that counts how many bytes the decoder read before it stopped. */
function counting(bytes: Uint8Array): { source: ByteSource; read: () => number } {
  const inner = new MemoryByteSource(bytes, 'big.dmp');
  let furthest = 0;
  const source: ByteSource = {
    name: inner.name,
    size: inner.size,
    read: async (offset, length) => {
      const b = await inner.read(offset, length);
      furthest = Math.max(furthest, offset + b.length);
      return b;
    },
  };
  return { source, read: () => furthest };
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('no error');
}

const budget = (availableBytes: number) => (): MemoryBudget => ({ availableBytes, source: 'HEAPSCOPE_MEMORY_LIMIT=test' });

describe('process dumps larger than memory: memory/too-large before the graph is built', () => {
  it('refuses from INFO smallObjectHeapBytes before reading any object: at least one object per 512 bytes, 128 bytes each', async () => {
    // 512 MB small-object heap → at least 1,048,576 objects → 128 MB; 100 MB available.
    const bytes = heap(100_000, 512 * 2 ** 20).finish();
    const { source, read } = counting(bytes);
    const e = await refusal(readDumpStream(source, undefined, undefined, budget(100 * 2 ** 20)));
    expect(e.code).toBe('memory/too-large');
    expect(e.message).toBe(
      'big.dmp needs more than 128.0 MB of memory to open: its small-object heap is 512.0 MB, at least 1,048,576 objects (assuming they average at most 512 bytes), but only 100.0 MB is available (HEAPSCOPE_MEMORY_LIMIT=test)',
    );
    expect(e.detail).toEqual({ estimateBytes: 134_217_728, availableBytes: 104_857_600, nodes: 1_048_576, edges: 0, smallObjectHeapBytes: 536_870_912, limit: 'HEAPSCOPE_MEMORY_LIMIT=test' });
    // refused within the first chunk read: the 100,000 objects (3.8 MB) were never read
    expect(read()).toBeLessThan(bytes.length / 2);
  });

  it('refuses from the exact counts while objects arrive (every 65,536 objects), before the end of the stream', async () => {
    // 200,000 objects, 199,999 references: 27,999,988 bytes in all. 65,536 objects with 65,536
    // references (the last one's reference is counted) cost 9,175,040; 131,072: 18,350,080.
    const bytes = heap(200_000, 0).finish();
    const { source, read } = counting(bytes);
    const e = await refusal(readDumpStream(source, undefined, undefined, budget(10_000_000)));
    expect(e.code).toBe('memory/too-large');
    expect(e.message).toBe('big.dmp needs more than 17.5 MB of memory to open (at least 131,072 objects and 131,072 references (read so far)), but only 9.5 MB is available (HEAPSCOPE_MEMORY_LIMIT=test)');
    expect(e.detail).toMatchObject({ estimateBytes: 18_350_080, nodes: 131_072, edges: 131_072, complete: false });
    expect(read()).toBeLessThan(bytes.length);
  });

  it('refuses at the end with the exact estimate; the same stream opens with one byte more', async () => {
    const bytes = heap(1000, 32_000).finish();
    const exact = 1000 * 128 + 999 * 12; // 139,988
    const e = await refusal(readDumpStream(new MemoryByteSource(bytes, 'small.dmp'), undefined, undefined, budget(exact - 1)));
    expect(e.message).toBe('small.dmp needs about 136.7 KB of memory to open (1,000 objects and 999 references), but only 136.7 KB is available (HEAPSCOPE_MEMORY_LIMIT=test)');
    expect(e.detail).toMatchObject({ estimateBytes: exact, availableBytes: exact - 1, nodes: 1000, edges: 999, complete: true });
    const g = await readDumpStream(new MemoryByteSource(bytes, 'small.dmp'), undefined, undefined, budget(exact));
    expect(g.edgeTarget.length).toBe(999 + 3); // references; [.NET Roots] → [other roots] → [strong Handles] → object 0
  });

  it('asks the budget once (the decoder\'s own columns must not count twice) and not at all without one', async () => {
    let asked = 0;
    const g = await readDumpStream(new MemoryByteSource(heap(70_000, 2_240_000).finish(), 'x.dmp'), undefined, undefined, () => {
      asked++;
      return { availableBytes: 2 ** 40, source: 'test' };
    });
    expect(asked).toBe(1);
    expect(g.nodeCount).toBeGreaterThan(70_000);
    await expect(readDumpStream(new MemoryByteSource(heap(10, 2 ** 50).finish(), 'x.dmp'))).resolves.toBeDefined();
  });
});
