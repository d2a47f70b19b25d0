import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors.js';
import { NetTraceParser } from '../../../../../shared/formats/nettrace/nettrace-parser.js';
import { readNetTraceSnapshot } from '../../../../../shared/formats/nettrace/read-nettrace-snapshot.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { fixturePath } from '../../../../helpers/fixtures.js';
import { sampleHeap, writeHeapTrace } from '../../../../helpers/heap-trace.js';
import { mulberry32 as rng } from '../../../../helpers/prng.js';

/**
 * Damaged input must end in a coded AppError (format/…) or a result, quickly: never a
 * TypeError/RangeError, never a hang. Each case gets a generous 2 s budget.
 */

const outcomes = new Map<string, number>();

function note(kind: string): void {
  outcomes.set(kind, (outcomes.get(kind) ?? 0) + 1);
}

function parseAll(bytes: Uint8Array, sort: boolean): void {
  const t0 = performance.now();
  try {
    const p = new NetTraceParser({ onEvent: (e) => void e.payload }, { sort });
    for (let at = 0; at < bytes.length; at += 65_536) p.push(bytes.subarray(at, at + 65_536));
    p.end();
    note('ok');
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    expect(e.code).toMatch(/^format\//);
    note(e.code);
  }
  expect(performance.now() - t0).toBeLessThan(2000);
}

async function snapshotAll(bytes: Uint8Array): Promise<void> {
  const t0 = performance.now();
  try {
    await readNetTraceSnapshot(new MemoryByteSource(bytes));
    note('graph');
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    expect(e.code).toMatch(/^(format\/|usage\/)/);
    note(e.code);
  }
  expect(performance.now() - t0).toBeLessThan(2000);
}

function mutate(bytes: Uint8Array, r: () => number): Uint8Array {
  const copy = bytes.slice();
  const flips = 1 + Math.floor(r() * 3);
  for (let i = 0; i < flips; i++) copy[Math.floor(r() * copy.length)] ^= 1 + Math.floor(r() * 255);
  return copy;
}

function fixture(name: string): Uint8Array | null {
  const p = fixturePath(`nettrace/${name}`);
  return p ? new Uint8Array(readFileSync(p)) : null;
}

describe('damaged EventPipe streams fail with coded errors, never hang', () => {
  it('every truncation and 400 byte flips of the 6.0 and tracelogging fixtures', () => {
    for (const name of ['eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace', 'eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf']) {
      const bytes = fixture(name);
      if (!bytes) continue;
      for (let cut = 0; cut < bytes.length; cut += bytes.length > 1000 ? 7 : 1) parseAll(bytes.subarray(0, cut), false);
      const r = rng(bytes.length);
      for (let i = 0; i < 400; i++) parseAll(mutate(bytes, r), i % 2 === 0);
    }
  });

  it('truncations and flips of the larger fixtures (5.0, 3.0, x86 NetPerf)', () => {
    const cases: [string, number][] = [
      ['eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace', 40],
      ['eventpipe-dotnetcore3.0-win-x64-objver4.nettrace', 4],
      ['eventpipe-dotnetcore2.1-win-x86-objver3.netperf', 3],
    ];
    for (const [name, n] of cases) {
      const bytes = fixture(name);
      if (!bytes) continue;
      const r = rng(n);
      for (let i = 0; i < n; i++) {
        parseAll(bytes.subarray(0, Math.floor(r() * bytes.length)), false);
        parseAll(mutate(bytes, r), true);
      }
    }
  });

  it('truncations and flips of a synthetic heap-dump trace through the snapshot reader', async () => {
    const bytes = writeHeapTrace(sampleHeap(), { nodesPerEvent: 2, edgesPerEvent: 2 });
    for (let cut = 0; cut < bytes.length; cut += 3) await snapshotAll(bytes.subarray(0, cut));
    const r = rng(7);
    for (let i = 0; i < 600; i++) await snapshotAll(mutate(bytes, r));
    // Sanity: the fuzzing exercised both outcomes, not just one error path.
    expect(outcomes.get('graph') ?? 0).toBeGreaterThan(20);
    expect(outcomes.get('format/truncated') ?? 0).toBeGreaterThan(20);
    expect(outcomes.get('format/corrupt') ?? 0).toBeGreaterThan(20);
  });
});
