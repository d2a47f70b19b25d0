import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors.js';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { FIXTURES_DIR, NO_FIXTURES } from '../../../../helpers/fixtures.js';
import { mulberry32 } from '../../../../helpers/random-graph.js';
import { fixtureBytes, GCDUMP_FIXTURES } from './gcdump-test-utils.js';

/**
 * Damaged files: every case must end in a coded AppError (FormatError) or a structurally valid
 * graph (problems allowed) — never another exception, never a hang. Per-case time is measured;
 * the budget is 2 s per case (a real hang would hit the test timeout instead).
 */

interface Stats {
  cases: number;
  errors: number;
  graphs: number;
  maxMs: number;
  codes: Record<string, number>;
  bad: string[];
}

const newStats = (): Stats => ({ cases: 0, errors: 0, graphs: 0, maxMs: 0, codes: {}, bad: [] });

function checkGraph(g: HeapGraph): string | null {
  const n = g.nodeCount;
  if (g.rootIndex < 0 || g.rootIndex >= n || g.firstEdge.length !== n + 1 || g.firstEdge[n] !== g.edgeCount) return 'bad CSR header';
  for (let i = 0; i < n; i++) {
    if (g.firstEdge[i] > g.firstEdge[i + 1]) return `firstEdge not monotonic at ${i}`;
    if (g.nodeType[i] >= g.types.count) return `node ${i} has type ${g.nodeType[i]}`;
  }
  for (let e = 0; e < g.edgeCount; e++) if (g.edgeTarget[e] >= n) return `edge ${e} targets ${g.edgeTarget[e]}`;
  if (g.types.names.length !== g.types.count || g.types.sizes.length !== g.types.count) return 'bad type table';
  return null;
}

async function runCase(bytes: Uint8Array, label: string, stats: Stats): Promise<void> {
  const t0 = performance.now();
  try {
    const g = await readGcdump(new MemoryByteSource(bytes, label));
    const why = checkGraph(g);
    if (why) stats.bad.push(`${label}: invalid graph: ${why}`);
    stats.graphs++;
  } catch (e) {
    if (e instanceof AppError && e.code.startsWith('format/')) {
      stats.errors++;
      stats.codes[e.code] = (stats.codes[e.code] ?? 0) + 1;
    } else stats.bad.push(`${label}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  stats.cases++;
  stats.maxMs = Math.max(stats.maxMs, performance.now() - t0);
}

function report(what: string, s: Stats): void {
  console.info(`${what}: ${s.cases} cases, ${s.errors} coded errors ${JSON.stringify(s.codes)}, ${s.graphs} graphs, max ${s.maxMs.toFixed(1)} ms per case`);
  expect(s.bad.slice(0, 10)).toEqual([]);
  expect(s.maxMs).toBeLessThan(2000);
}

/** 200 cut points: the whole header, the first KiB, the last KiB and an even spread in between. */
function cutPoints(length: number): number[] {
  const cuts = new Set<number>();
  for (let i = 0; i <= 40; i++) cuts.add(i);
  for (let i = 0; cuts.size < 80; i++) cuts.add(41 + i * 25);
  for (let i = 1; cuts.size < 120; i++) cuts.add(length - i * 9);
  const rest = 200 - cuts.size;
  for (let i = 1; cuts.size < 200; i++) cuts.add(Math.floor((length * i) / (rest + 1)));
  return [...cuts].filter((c) => c >= 0 && c < length).sort((a, b) => a - b);
}

describe.skipIf(!FIXTURES_DIR)(`gcdump reader on damaged files (${FIXTURES_DIR ? 'fixtures' : NO_FIXTURES})`, () => {
  it.each(GCDUMP_FIXTURES)('%s truncated at 200 points', async (name) => {
    const bytes = fixtureBytes(name)!;
    const stats = newStats();
    const cuts = cutPoints(bytes.length);
    expect(cuts.length).toBe(200);
    for (const cut of cuts) await runCase(bytes.subarray(0, cut), `${name}[0,${cut})`, stats);
    report(`${name} truncated`, stats);
    // A cut anywhere before the forward-reference table loses data the graph needs.
    expect(stats.errors).toBeGreaterThan(150);
  });

  it.each([
    ['perfview_test1', 1000, 11],
    ['monovm_ios_sample', 700, 12],
  ] as const)('%s with %i seeded random byte flips', async (name, count, seed) => {
    const original = fixtureBytes(name)!;
    const rnd = mulberry32(seed);
    const stats = newStats();
    const work = new Uint8Array(original);
    for (let c = 0; c < count; c++) {
      // Half the cases aim at the structure before the blob (header, types, offsets), where a
      // flip changes counts and tags; the rest anywhere. 1–3 bytes each.
      const flips = 1 + Math.floor(rnd() * 3);
      const changed: number[] = [];
      for (let f = 0; f < flips; f++) {
        const at = rnd() < 0.5 ? Math.floor(rnd() * Math.min(original.length, 0x20000)) : Math.floor(rnd() * original.length);
        work[at] = rnd() < 0.5 ? work[at] ^ (1 << Math.floor(rnd() * 8)) : Math.floor(rnd() * 256);
        changed.push(at);
      }
      await runCase(work, `${name} flips@${changed.join(',')}`, stats);
      for (const at of changed) work[at] = original[at];
    }
    report(`${name} flipped`, stats);
  });
});
