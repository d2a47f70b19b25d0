import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { HeapGraphBuilder } from '../../shared/graph/heap-graph-builder.js';
import { emptyMetadata } from '../../shared/graph/metadata.js';
import { captureIo } from '../helpers/capture-io.js';

/*
 * A .gcdump with one GC segment [0x10000, 0x20000) (gen2) and objects outside it, end to end
 * through the CLI (issue 13, item 7):
 *   root → S1 (String 30, in the segment), root → F1 (String 40, frozen), root → C (CCW 200, outside)
 *   F2 (String 50, frozen) and G (String 60, in the segment) have no root.
 */
let dir: string;
const file = () => join(dir, 'frozen.gcdump');
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-cli-frozen-'));
  const b = new HeapGraphBuilder();
  const tr = b.addType('[.NET Roots]');
  const ts = b.addType('System.String', 'System.Private.CoreLib.dll');
  const tc = b.addType('[CCW for App.Thing]');
  b.createNodes(6);
  b.setNode(0, tr, 0, [1, 2, 3]);
  const objs: [number, number, number][] = [
    [ts, 0x10100, 30], // 1 S1
    [ts, 0x900000, 40], // 2 F1
    [tc, 0x5000, 200], // 3 C
    [ts, 0x900100, 50], // 4 F2
    [ts, 0x10200, 60], // 5 G
  ];
  objs.forEach(([t, addr, size], i) => {
    b.setNode(i + 1, t, size, []);
    b.setAddress(i + 1, addr);
  });
  b.setRoot(0);
  const segments = [{ start: 0x10000n, end: 0x20000n, gen0End: 0n, gen1End: 0n, gen2End: 0x20000n, gen3End: 0n, gen4End: 0n }];
  writeFileSync(file(), Buffer.concat(writeGcdump(b.finish({ ...emptyMetadata('synthetic'), pointerSize: 8, segments }))));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}

describe('frozen (non-GC heap) objects through the CLI', () => {
  it('generations: a "frozen (non-GC heap)" row after unknown, explained under the table', async () => {
    const j = JSON.parse((await run('generations', file(), '--format', 'json')).out) as { generations: { name: string; count: number; bytes: number }[] };
    expect(j.generations.map((g) => [g.name, g.count, g.bytes])).toEqual([
      ['gen0', 0, 0],
      ['gen1', 0, 0],
      ['gen2', 2, 90],
      ['LOH', 0, 0],
      ['POH', 0, 0],
      ['unknown', 1, 200],
      ['frozen (non-GC heap)', 2, 90],
    ]);
    const t = await run('generations', file());
    expect(t.out).toMatch(/^frozen \(non-GC heap\) +2 +90 +23\.68$/m);
    expect(t.out).toContain('"frozen (non-GC heap)": objects outside every GC segment');
    const csv = await run('generations', file(), '--format', 'csv');
    expect(csv.out.split('\r\n')).toContain('frozen (non-GC heap),2,90,23.68');
  });

  it('paths: an unreachable frozen object is not called garbage', async () => {
    const t = await run('paths', file(), '--type', 'System.String');
    expect(t.out.split('\n')[0]).toBe('System.String: 4 instances, 2 reachable, 2 unreachable (1 garbage or weakly held, 1 frozen (non-GC heap), never collected)');
    const j = JSON.parse((await run('paths', file(), '--type', 'System.String', '--format', 'json')).out) as Record<string, unknown>;
    expect([j.instances, j.reachable, j.unreachable, j.unreachableFrozen]).toEqual([4, 2, 2, 1]);

    const f2 = await run('paths', file(), '--address', '0x900100');
    expect(f2.out).toContain('not reachable from any reported root: it is a frozen (non-GC heap) object');
    const g = await run('paths', file(), '--address', '0x10200');
    expect(g.out).toContain('not reachable from any root: it is garbage, or held only by weak handles');
    const jf = JSON.parse((await run('paths', file(), '--address', '0x900100', '--format', 'json')).out) as Record<string, unknown>;
    expect([jf.reachable, jf.frozen]).toEqual([false, true]);
  });

  it('report: both unreachable strings are in the unreachable columns', async () => {
    const rows = JSON.parse((await run('report', file(), '--format', 'json')).out) as Record<string, unknown>[];
    const s = rows.find((r) => r.type === 'System.String')!;
    expect([s.count, s.shallowSize, s.retainedSize, s.unreachableCount, s.unreachableSize]).toEqual([4, 180, 70, 2, 110]);
  });
});
