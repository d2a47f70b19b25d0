import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { summaryText } from '../../../../electron/cli/commands/gc-timeline.js';
import { runCli } from '../../../../electron/cli/main.js';
import { writeGcdump } from '../../../../shared/formats/gcdump/gcdump-writer.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

// The CLI's text lines agree their nouns with the count (issue 14 item 8: "1 types", "1 nodes are").

const dir = mkdtempSync(join(tmpdir(), 'heapscope-plural-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: { write: (s: string) => void (out += s) }, stderr: { write: (s: string) => void (err += s) } });
  return { code, out, err };
}

describe('CLI text with counts of one', () => {
  // One root pseudo-node, one 24-byte Foo object reachable, one 1-byte Bar nobody references.
  const file = join(dir, 'one.gcdump');
  writeFileSync(
    file,
    Buffer.concat(
      writeGcdump(
        tinyGraph((b) => {
          b.root('[static vars]').ref('A');
          b.node('A', 24, 'Foo');
          b.node('B', 1, 'Bar');
        }).graph,
      ),
    ),
  );

  it('report: "of 2 types" but "1 type matches"', async () => {
    const r = await run('report', file, '--filter', 'Foo');
    expect(r.code).toBe(0);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe('one.gcdump: 2 objects of 2 types, 25 bytes (pseudo-nodes and undefined nodes not counted)');
    expect(lines[1]).toBe('1 type matches the filter');
  });

  it('dominators: one unreachable node is not in the tree', async () => {
    const r = await run('dominators', file);
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toBe('one.gcdump: 3 reachable nodes, 24 bytes reachable; 1 unreachable node (1 byte) is not in the tree');
  });

});

describe('gc-timeline summary with one GC', () => {
  it('says "1 GC" and "suspended 1 time"', () => {
    const text = summaryText({
      gcCount: 1,
      byGeneration: [1, 0, 0],
      byType: { NonConcurrent: 1, Background: 0, Foreground: 0 },
      induced: 0,
      pause: { count: 1, totalMs: 2.5, p50: 2.5, p90: 2.5, p99: 2.5, max: 2.5 },
      traceDurationMs: 1000,
      pausedPercent: 0.25,
      otherSuspensions: { count: 0, totalMs: 0 },
      suspensions: { count: 1, totalMs: 2.5 },
    });
    expect(text.split('\n')).toEqual([
      '1 GC (gen0 1, gen1 0, gen2 0; background 0, foreground 0; induced 0) in 1,000 ms of trace',
      'pauses: 1 totalling 2.5 ms (0.25% of the trace); p50 2.5 ms, p90 2.5 ms, p99 2.5 ms, max 2.5 ms',
      'runtime suspended 1 time for 2.5 ms (0 of them, 0 ms, not for a GC)',
    ]);
  });
});
