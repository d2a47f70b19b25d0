import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors.js';
import { readDumpStream } from '../../../../../shared/formats/dump/dump-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../../helpers/dump-stream-writer.js';

/**
 * PROGRESS records (tag 0x09: u64 heap bytes walked, u64 heap bytes in all segments): decoded as
 * ('parse', done, total) calls of the reader's progress sink, in stream order, and otherwise
 * invisible (the graph is the same as without them).
 */
type Call = [string, number, number];

export function heap(withProgress: boolean): Uint8Array {
  const w = new DumpStreamWriter();
  w.info('pointerSize', '8').type(0, 'Foo').type(1, 'Bar');
  if (withProgress) w.progress(0, 4096);
  w.object(0x1000, 0, 24, 0, [[0x1018, 'next']]);
  if (withProgress) w.progress(2048, 4096);
  w.object(0x1018, 1, 40, 0);
  // A helper's count that overshoots its total is clamped (a bar never passes its end).
  if (withProgress) w.progress(5000, 4096).progress(4096, 4096);
  w.root(1, 'App', 'Root', 0x1000);
  return w.end().finish();
}

async function readWith(bytes: Uint8Array): Promise<{ calls: Call[]; nodes: number; edges: number; types: string[] }> {
  const calls: Call[] = [];
  const g = await readDumpStream(new MemoryByteSource(bytes, 'p.stream'), undefined, (phase, done, total) => calls.push([phase, done, total]));
  return { calls, nodes: g.nodeCount, edges: g.edgeCount, types: [...g.types.names] };
}

describe('dump stream PROGRESS records', () => {
  it('reach the progress sink as exact (parse, done, total) calls and leave the graph unchanged', async () => {
    const withP = await readWith(heap(true));
    expect(withP.calls).toEqual([
      ['parse', 0, 4096],
      ['parse', 2048, 4096],
      ['parse', 4096, 4096],
      ['parse', 4096, 4096],
    ]);
    const without = await readWith(heap(false));
    expect(without.calls).toEqual([]);
    expect({ ...withP, calls: [] }).toEqual(without);
    expect(without.nodes).toBe(5);
  });

  it('a stream cut inside a PROGRESS record is format/truncated', async () => {
    const full = heap(true);
    const at = 8 + full.slice(8).indexOf(0x09); // first PROGRESS tag (no earlier byte is 0x09 here)
    for (const len of [at + 1, at + 9, at + 16]) {
      const e = await readDumpStream(new MemoryByteSource(full.subarray(0, len), 'cut.stream')).then(
        () => null,
        (x: unknown) => x,
      );
      expect((e as AppError).code).toBe('format/truncated');
    }
  });
});
