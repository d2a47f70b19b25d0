import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { PERFVIEW_INCLUSIVE_LABEL } from '../../shared/analysis/perfview-inclusive.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { captureIo } from '../helpers/capture-io.js';
import { tinyGraph } from '../helpers/graph-builder.js';

/*
 * `heapscope report --perfview-inclusive` on a tiny .gcdump written with our writer, where the
 * exact retained size and PerfView's spanning-tree inclusive size disagree. Worked by hand:
 *
 *   [root] → [static vars] → Cache(24) → Node1(16) → Node2(16) → Buf(200, System.Byte[])
 *   [root] → [local vars]  → Handler(8) → Buf                   (Buf has two owners)
 *   G(4), garbage: no root reaches it → Node2
 *
 * Exact (dominator tree over the reachable heap; G's reference is ignored, analyze.ts):
 *   Buf is reached through Node2 and through Handler, so only [root] dominates it.
 *   retained: Buf 200, Node2 16, Node1 16 + 16 = 32, Cache 24 + 32 = 56, Handler 8, G 0 in the
 *   per-type column (unreachable objects count in no type).
 *   Type retained of Node: Node2 lies inside Node1's dominator subtree, so only Node1 counts: 32.
 *
 * PerfView (priority-first spanning tree, default priorities): "[local vars]" has priority
 * −1000, so [static vars] and everything below it (all priority 0) leave the queue first:
 *   [static vars] → Cache → Node1 → Node2 → Buf each become the parent of the next, and Buf is
 *   charged to Node2. Handler (priority 0 + (−1000)/10 = −100) comes later; Buf already has an
 *   owner. G is an orphan: enqueued after the live heap, below "[not reachable from roots]".
 *   inclusive: Buf 200, Node2 16 + 200 = 216, Node1 16 + 216 = 232, Cache 24 + 232 = 256,
 *   Handler 8, G 4.
 *   Per type (PerfView's "By Name" rule, the same no-double-counting rule as type retained):
 *   Node = inclusive(Node1) = 232, not 232 + 216; System.Byte[] 200; G 4.
 */
const t = tinyGraph((b) => {
  b.root('[static vars]').ref('Cache');
  b.root('[local vars]').ref('Handler');
  b.node('Cache', 24).ref('Node1');
  b.node('Node1', 16, 'Node').ref('Node2');
  b.node('Node2', 16, 'Node').ref('Buf');
  b.node('Buf', 200, 'System.Byte[]');
  b.node('Handler', 8).ref('Buf');
  b.node('G', 4).ref('Node2');
});

interface Row {
  type: string;
  count: number;
  shallowSize: number;
  retainedSize: number;
  perfviewInclusiveSize?: number;
}

let dir: string;
let file: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-cli-perfview-'));
  file = join(dir, 'shared-buffer.gcdump');
  writeFileSync(file, Buffer.concat(writeGcdump(t.graph)));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function report(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await runCli(['report', file, ...argv], c.io);
  return { code, out: c.out, err: c.err };
}

async function rows(...argv: string[]): Promise<Map<string, Row>> {
  const r = await report(...argv, '--format', 'json');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return new Map((JSON.parse(r.out) as Row[]).map((row) => [row.type, row]));
}

describe('heapscope report --perfview-inclusive', () => {
  it('adds perfviewInclusiveSize next to the exact retained size, and they differ where PerfView charges a shared object to one owner', async () => {
    const byType = await rows('--perfview-inclusive');
    const pick = (type: string) => {
      const r = byType.get(type);
      return r && [r.count, r.shallowSize, r.retainedSize, r.perfviewInclusiveSize];
    };
    expect(pick('Cache')).toEqual([1, 24, 56, 256]);
    expect(pick('Node')).toEqual([2, 32, 32, 232]);
    expect(pick('System.Byte[]')).toEqual([1, 200, 200, 200]);
    expect(pick('Handler')).toEqual([1, 8, 8, 8]);
    expect(pick('G')).toEqual([1, 4, 0, 4]);
    expect(byType.size).toBe(5);
  });

  it('is opt-in: without the flag no row has the field', async () => {
    for (const row of (await rows()).values()) expect(row).not.toHaveProperty('perfviewInclusiveSize');
    const csv = await report('--format', 'csv');
    expect(csv.out.split('\r\n')[0]).not.toContain('perfview');
    const table = await report();
    expect(table.out).not.toContain('PerfView');
  });

  it('CSV has a perfviewInclusiveSize column', async () => {
    const csv = await report('--perfview-inclusive', '--format', 'csv', '--sort', 'name');
    const lines = csv.out.trimEnd().split('\r\n');
    const header = lines[0].split(',');
    const col = header.indexOf('perfviewInclusiveSize');
    expect(col).toBe(header.indexOf('retainedSize') + 1);
    const node = lines.find((l) => l.startsWith('Node,'))!.split(',');
    expect([node[header.indexOf('retainedSize')], node[col]]).toEqual(['32', '232']);
  });

  it('labels the table column as the PerfView-style heuristic, never as retained', async () => {
    const table = await report('--perfview-inclusive', '--sort', 'name');
    expect(table.code).toBe(0);
    const lines = table.out.split('\n');
    const headerLine = lines.find((l) => l.startsWith('Type'))!;
    expect(headerLine).toContain(PERFVIEW_INCLUSIVE_LABEL);
    expect(PERFVIEW_INCLUSIVE_LABEL).toMatch(/^PerfView-style inclusive size \(.*heuristic.*\)$/);
    expect(table.out).toContain('PerfView-style inclusive size: a heuristic');
    // the Cache row: count, shallow, retained, PerfView-style inclusive
    expect(lines.find((l) => l.startsWith('Cache'))).toMatch(/^Cache +1 +24 +56 +256/);
  });
});
