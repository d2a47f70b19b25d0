import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSnapshot } from '../../electron/cli/load.js';
import { loadReportGraph } from '../../electron/cli/report-graph.js';
import { parseArgs } from '../../electron/cli/args.js';
import { buildReportRows, reportCommand } from '../../electron/cli/commands/report.js';
import { analyzeTypeRetention } from '../../shared/analysis/analyze.js';
import { computePerfViewInclusive } from '../../shared/analysis/perfview-inclusive.js';
import { computeSetRetained } from '../../shared/analysis/set-retained.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { estimateSnapshotBytes } from '../../shared/graph/memory-estimate.js';
import { captureIo, runCliCaptured } from '../helpers/capture-io.js';
import { fixturePath } from '../helpers/fixtures.js';
import { syntheticHeap } from '../helpers/random-graph.js';

/**
 * `heapscope report` in its low-memory mode (report-graph.ts: the rescan analysis, the graph
 * without its address column, a GC after the parse) prints exactly what the default mode prints,
 * with every flag that reads the graph after the analysis (--set-retained, --perfview-inclusive)
 * and with a what-if graph (--ignore-type). The mode is forced with HEAPSCOPE_MEMORY_LIMIT between
 * the file's estimate (below it the file is refused) and twice the estimate (preferLowMemoryAnalysis).
 */
const saved = process.env.HEAPSCOPE_MEMORY_LIMIT;
afterEach(() => {
  if (saved === undefined) delete process.env.HEAPSCOPE_MEMORY_LIMIT;
  else process.env.HEAPSCOPE_MEMORY_LIMIT = saved;
});

let dir = '';
let synthetic = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-report-low-memory-'));
  synthetic = join(dir, 'synthetic.gcdump');
  writeFileSync(synthetic, Buffer.concat(writeGcdump(syntheticHeap(20_000, 2.5, 7))));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function lowMemoryLimit(file: string): Promise<string> {
  const { graph } = await loadSnapshot(file, captureIo().io.stderr);
  return String(Math.floor(1.5 * estimateSnapshotBytes(graph.nodeCount, graph.edgeCount, 'cli')));
}

async function reportBothWays(file: string, flags: string[]): Promise<{ fast: string; lean: string }> {
  process.env.HEAPSCOPE_MEMORY_LIMIT = '1T';
  const fast = await runCliCaptured(['report', file, ...flags]);
  process.env.HEAPSCOPE_MEMORY_LIMIT = await lowMemoryLimit(file);
  const lean = await runCliCaptured(['report', file, ...flags]);
  expect(fast.err).toBe('');
  expect(lean.err).toBe('');
  expect(lean.code).toBe(fast.code);
  return { fast: fast.out, lean: lean.out };
}

const FILES = [
  { name: 'a synthetic heap', path: () => synthetic },
  { name: 'perfview_test2.gcdump', path: () => fixturePath('gcdump/perfview_test2.gcdump') },
];

describe.each(FILES)('heapscope report, low-memory mode, on $name', ({ path }) => {
  it('chooses the low-memory analysis only when memory is tight; the graph has no addresses in either mode, every other column the same', async (ctx) => {
    const file = path();
    if (!file) return ctx.skip();
    const args = parseArgs([file], reportCommand.flags);
    process.env.HEAPSCOPE_MEMORY_LIMIT = '1T';
    const fast = await loadReportGraph(file, captureIo().io.stderr, args);
    expect(fast.lowMemory).toBe(false);
    expect(fast.graph.address.length).toBe(0);
    process.env.HEAPSCOPE_MEMORY_LIMIT = await lowMemoryLimit(file);
    const lean = await loadReportGraph(file, captureIo().io.stderr, args);
    expect(lean.lowMemory).toBe(true);
    expect(lean.graph.address.length).toBe(0);
    expect(lean.graph.nodeCount).toBe(fast.graph.nodeCount);
    expect(Array.from(lean.graph.nodeType)).toEqual(Array.from(fast.graph.nodeType));
  });

  it('prints, in both modes, the figures of the whole graph (its addresses included)', async (ctx) => {
    const file = path();
    if (!file) return ctx.skip();
    // the oracle: the file's graph as every other command reads it, analysed by the shared functions
    const { graph } = await loadSnapshot(file, captureIo().io.stderr);
    expect(graph.address.length).toBe(graph.nodeCount);
    const retention = analyzeTypeRetention(graph);
    const { rows } = buildReportRows(graph, retention.typeRetained, retention);
    const perfview = computePerfViewInclusive(graph).typeInclusive;
    const set = computeSetRetained(graph, retention, rows.map((r) => r.typeIndex));
    const key = (type: string, module: string | null) => `${type}\u0000${module}`;
    const expected = new Map(rows.map((r, i) => [key(r.name, r.module), [r.count, r.shallowSize, r.retainedSize, perfview[r.typeIndex], set[i], r.unreachableCount, r.unreachableSize]]));
    expect(expected.size).toBe(rows.length);
    const { fast, lean } = await reportBothWays(file, ['--top', '0', '--format', 'json', '--set-retained', '--perfview-inclusive']);
    for (const out of [fast, lean]) {
      const printed = JSON.parse(out) as { type: string; module: string | null; count: number; shallowSize: number; retainedSize: number; perfviewInclusiveSize: number; setRetainedSize: number; unreachableCount: number; unreachableSize: number }[];
      expect(printed.length).toBe(expected.size);
      for (const p of printed) {
        expect([p.type, p.count, p.shallowSize, p.retainedSize, p.perfviewInclusiveSize, p.setRetainedSize, p.unreachableCount, p.unreachableSize]).toEqual([p.type, ...expected.get(key(p.type, p.module))!]);
      }
    }
  });

  it('prints the same JSON rows as the default mode, with set retained and PerfView inclusive sizes', async (ctx) => {
    const file = path();
    if (!file) return ctx.skip();
    const { fast, lean } = await reportBothWays(file, ['--sort', 'retained', '--top', '0', '--format', 'json', '--set-retained', '--perfview-inclusive']);
    const rows = JSON.parse(fast) as { retainedSize: number; setRetainedSize: number }[];
    expect(rows.length).toBeGreaterThan(10);
    expect(rows.some((r) => r.retainedSize > 0 && r.setRetainedSize >= r.retainedSize)).toBe(true);
    expect(lean).toBe(fast);
  });

  it('prints the same table, and the same what-if table', async (ctx) => {
    const file = path();
    if (!file) return ctx.skip();
    const table = await reportBothWays(file, ['--sort', 'retained', '--top', '20']);
    expect(table.lean).toBe(table.fast);
    // the what-if graph ignores the references of the type that retains the most
    const rows = JSON.parse((await reportBothWays(file, ['--sort', 'retained', '--top', '1', '--format', 'json'])).fast) as { type: string }[];
    const whatIf = await reportBothWays(file, ['--sort', 'retained', '--ignore-type', rows[0].type]);
    expect(whatIf.fast).toContain('what if:');
    expect(whatIf.lean).toBe(whatIf.fast);
  });
});
