import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors.js';
import { listCfHeapLogSections, readCfHeapLog } from '../../../../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { generateCfHeapLogText } from '../../../../tools/gen-cf-heaplog.js';
import { mulberry32 as rng } from '../../../../helpers/prng.js';

// Bad input must end in a graph with problems or a coded AppError: never another exception, never
// a hang (the per-test timeouts below are the hang guard, not a speed target).

const { text } = generateCfHeapLogText({ objects: 150, seed: 11 });
const full = new TextEncoder().encode(text);
const firstEnd = text.indexOf('\nc bubblecs.exe') + 1; // start of section 0's end record


/** The graph, or null when the reader failed with a coded AppError; anything else fails the test. */
async function readOrCoded(bytes: Uint8Array, select?: string, chunkSize?: number): Promise<HeapGraph | null> {
  try {
    return await readCfHeapLog(new MemoryByteSource(bytes), { select, chunkSize });
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    expect(e.code).not.toBe('bug');
    return null;
  }
}

describe('truncated logs', () => {
  it('open at 200 cut points, reporting the truncation', { timeout: 30_000 }, async () => {
    const r = rng(1);
    const cuts = Array.from({ length: 200 }, (_, i) => (i < 100 ? Math.floor((i * full.length) / 100) : Math.floor(r() * full.length)));
    let opened = 0;
    for (const cut of cuts) {
      const bytes = full.subarray(0, cut);
      const g = await readOrCoded(bytes, undefined, 4096);
      if (!g) continue;
      opened++;
      // Cut before section 0's "c" line: the section cannot be complete, so that must be said.
      if (cut < firstEnd) expect(g.problems.counts.truncated ?? 0).toBeGreaterThan(0);
      await listCfHeapLogSections(new MemoryByteSource(bytes));
    }
    // Only cuts inside the first line ("a 2 bubblecs.exe …") leave nothing to open.
    expect(opened).toBeGreaterThanOrEqual(198);
  });

  it('a cut inside the second section still opens it, truncated', async () => {
    const g = (await readOrCoded(full.subarray(0, full.length - 100), '1'))!;
    expect(g.problems.counts.truncated).toBeGreaterThan(0);
    expect(g.metadata.extra.sectionIndex).toBe(1);
  });
});

describe('byte flips', () => {
  it('seeded random damage gives problems or coded errors', { timeout: 30_000 }, async () => {
    const junk = [0, 10, 13, 32, 9, 0x61, 0x63, 0x6f, 0x72, 0x74, 0x7a, 0xff, 0x80, 0x47];
    for (let seed = 1; seed <= 150; seed++) {
      const r = rng(seed);
      const bytes = full.slice();
      const flips = 1 + Math.floor(r() * 30);
      for (let k = 0; k < flips; k++) {
        const at = Math.floor(r() * bytes.length);
        bytes[at] = r() < 0.5 ? junk[Math.floor(r() * junk.length)] : Math.floor(r() * 256);
      }
      for (const select of [undefined, '1', 'BubbleGame.Plugins']) await readOrCoded(bytes, select, seed % 3 === 0 ? 7 : undefined);
      await listCfHeapLogSections(new MemoryByteSource(bytes));
    }
  });

  it('a flipped digit in an object id is reported as a dangling reference with its line', async () => {
    const lines = text.split('\n');
    const i = lines.findIndex((l, k) => k > 40 && l.startsWith('o ') && l.split(' ').length > 4);
    const ref = lines[i].split(' ')[4];
    lines[i] = lines[i].replace(` ${ref}`, ' fffff1');
    const g = (await readOrCoded(new TextEncoder().encode(lines.join('\n'))))!;
    expect(g.problems.counts['dangling-reference']).toBe(1);
    expect(g.problems.entries[0].message).toBe(`line ${i + 1}: object 0xfffff1 is referenced but never described (kept as UNDEFINED, size 0)`);
  });

  it('binary garbage and a file with no newline at all never hang', { timeout: 10_000 }, async () => {
    const r = rng(99);
    const noise = Uint8Array.from({ length: 200_000 }, () => Math.floor(r() * 256));
    await readOrCoded(noise);
    await readOrCoded(new Uint8Array(300_000).fill(0x6f), undefined, 4096);
    await readOrCoded(new TextEncoder().encode('a 2 x\no ' + '1 '.repeat(100_000)), undefined, 1024);
  });
});
