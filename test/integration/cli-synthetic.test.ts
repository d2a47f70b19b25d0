import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import type { InfoJson } from '../../electron/cli/commands/info.js';
import { analyzeGraph } from '../../shared/analysis/analyze.js';
import { computeTypeStats } from '../../shared/analysis/type-stats.js';
import { makeSyntheticHeap } from '../tools/synthetic-heap.js';
import { generateGcdump } from '../tools/gen-gcdump.js';
import { captureIo } from '../helpers/capture-io.js';

// A synthetic dump written by our writer, read back through the CLI: needs no fixtures.
const OBJECTS = 20_000;
const SEED = 3;
const dir = mkdtempSync(join(tmpdir(), 'heapscope-synth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'synthetic.gcdump');
const written = generateGcdump({ objects: OBJECTS, seed: SEED, out: file });
const graph = makeSyntheticHeap({ objects: OBJECTS, seed: SEED });

async function run(...argv: string[]) {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}

describe('heapscope on a synthetic .gcdump', () => {
  it('info: the generated counts, generations and root categories', async () => {
    const r = await run('info', file, '--format', 'json');
    expect(r.code).toBe(0);
    const i = JSON.parse(r.out) as InfoJson;
    const s = computeTypeStats(graph);
    expect(i).toMatchObject({
      format: 'gcdump',
      creationTool: 'heapscope',
      pointerSize: 8,
      fileSize: written.bytes,
      nodeCount: graph.nodeCount,
      edgeCount: graph.edgeCount,
      objectCount: OBJECTS,
      pseudoNodeCount: s.pseudoNodeCount,
      undefinedNodeCount: 0,
      totalSize: graph.totalSize,
      sampled: false,
      warnings: [],
    });
    expect(i.metadata).toMatchObject({ processName: 'SyntheticApp', processId: 4242, segmentCount: 3, hasGenerationData: true, declaredTotalSize: graph.totalSize });
    expect(i.rootsByCategory.map((c) => c.category)).toEqual([
      '[static vars]',
      '[other roots]/[strong Handles]',
      '[other roots]/[pinning Handles]',
      '[local vars]',
      '[COM/WinRT Objects]',
    ]);
  });

  it('report: every object once, retained sizes as analysed in memory', async () => {
    const r = await run('report', file, '--format', 'json');
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out) as { type: string; count: number; shallowSize: number; retainedSize: number }[];
    expect(rows.reduce((a, x) => a + x.count, 0)).toBe(OBJECTS);
    expect(rows.reduce((a, x) => a + x.shallowSize, 0)).toBe(graph.totalSize);
    const a = analyzeGraph(graph);
    for (const row of rows) expect(row.retainedSize).toBe(a.typeRetained[graph.types.names.indexOf(row.type)]);
    expect(rows[0].type).toBe('System.String');
  });

  it('exit 3 and one coded line when the dump is cut short', async () => {
    const cut = join(dir, 'cut.gcdump');
    writeFileSync(cut, readFileSync(file).subarray(0, Math.floor(written.bytes / 2)));
    const r = await run('report', cut);
    expect(r.code).toBe(3);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^error format\/(truncated|corrupt): cut\.gcdump[^\n]*\n$/);
  });
});
