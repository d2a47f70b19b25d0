import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
