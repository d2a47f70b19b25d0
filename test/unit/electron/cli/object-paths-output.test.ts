import { describe, expect, it } from 'vitest';
import { writeObjectPaths } from '../../../../electron/cli/commands/object-paths-output.js';
import { renderRows, type Column } from '../../../../electron/cli/output.js';
import { describePath, findRetentionPaths, isPseudo, shortestPathTree, type RetentionPath } from '../../../../shared/analysis/paths-to-roots.js';
import { buildRetainers } from '../../../../shared/analysis/retainers.js';
import { GEN_FROZEN, type HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { csvText, PATH_STEPS_CSV, pathStepRows, type PathStepRow } from '../../../../shared/session/csv-export.js';
import { retentionPathDto } from '../../../../shared/session/paths-view.js';
import { chainHeap } from '../../../helpers/chain-heap.js';
import { randomGraph } from '../../../helpers/random-graph.js';

// `paths --address` writes its output step by step; the oracle is the whole-document form it
// replaced (JSON.stringify / csvText / renderRows over all rows), which must give the same bytes.

const ORACLE_TABLE: Column<PathStepRow>[] = [
  { header: 'Step', key: 'step', value: (r) => r.step, numeric: true },
  { header: 'Type', key: 'type', value: (r) => r.type, text: (r) => '  '.repeat(Math.min(r.step, 40)) + r.type },
  { header: 'Address', key: 'address', value: (r) => r.address, text: (r) => (r.pseudo ? '' : r.address) },
  { header: 'Bytes', key: 'size', value: (r) => r.size, numeric: true },
];

function oracle(format: 'json' | 'csv' | 'table', g: HeapGraph, node: number, reachable: boolean, truncated: boolean, paths: RetentionPath[]): string {
  const target = describePath(g, [node]).steps[0];
  if (format === 'json') return JSON.stringify({ target, reachable, frozen: g.generation[node] === GEN_FROZEN, truncated, paths }, null, 2) + '\n';
  const rows = pathStepRows(paths.map(retentionPathDto));
  if (format === 'csv') return csvText(PATH_STEPS_CSV, rows);
  let out = `${target.typeName} ${target.address} (${target.selfSize.toLocaleString('en-US')} bytes)\n`;
  if (!reachable) return out + 'not reachable from any root: it is garbage, or held only by weak handles\n';
  paths.forEach((p, i) => {
    const via = p.rootDetail && p.rootDetail !== p.rootCategory ? `${p.rootCategory} › ${p.rootDetail}` : (p.rootCategory ?? 'the root itself');
    out += `\npath ${i + 1} of ${paths.length}: ${p.length} references, via ${via}\n`;
    out += renderRows('table', rows.filter((r) => r.path === i + 1), ORACLE_TABLE);
  });
  if (truncated) out += '\n(search budget reached: longer paths may exist)\n';
  else if (paths.length === 1) out += '\n(no other path keeps it alive)\n';
  return out;
}

async function streamed(format: 'json' | 'csv' | 'table', g: HeapGraph, node: number, reachable: boolean, truncated: boolean, paths: RetentionPath[]) {
  const writes: string[] = [];
  await writeObjectPaths({ write: (s: string) => void writes.push(s) }, format, g, node, reachable, truncated, paths);
  return { text: writes.join(''), longest: writes.reduce((m, w) => Math.max(m, w.length), 0) };
}

describe('paths --address output, streamed', () => {
  it('equals the whole-document output on random graphs (every object, 1–5 paths, all formats)', async () => {
    let compared = 0;
    let multi = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const g = randomGraph(seed, { nodes: 40 + seed * 5, types: 6, avgDegree: 2.5 });
      const spt = shortestPathTree(g);
      const retainers = buildRetainers(g);
      for (let node = 0; node < g.nodeCount; node++) {
        if (isPseudo(g, node)) continue;
        const search = findRetentionPaths(g, node, spt, retainers, { maxPaths: 1 + (node % 5) });
        const paths = search.paths.map((p) => describePath(g, p));
        if (paths.length > 1) multi++;
        for (const format of ['json', 'csv', 'table'] as const) {
          expect((await streamed(format, g, node, search.reachable, search.truncated, paths)).text).toBe(oracle(format, g, node, search.reachable, search.truncated, paths));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1500);
    expect(multi).toBeGreaterThan(50);
  });

  it('writes a 50,000-step path in pieces of about 64 K characters', async () => {
    const n = 50_000;
    const g = chainHeap({ chain: n });
    const tail = n + 1;
    const search = findRetentionPaths(g, tail, shortestPathTree(g), buildRetainers(g), { maxPaths: 3 });
    const paths = search.paths.map((p) => describePath(g, p));
    expect(paths.map((p) => p.length)).toEqual([n + 1]);
    for (const format of ['json', 'csv', 'table'] as const) {
      const r = await streamed(format, g, tail, search.reachable, search.truncated, paths);
      expect(r.longest).toBeLessThan(70_000);
      expect(r.text).toBe(oracle(format, g, tail, search.reachable, search.truncated, paths));
    }
  });
});
