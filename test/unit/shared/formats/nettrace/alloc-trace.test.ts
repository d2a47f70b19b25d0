import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FileByteSource } from '../../../../../electron/files/file-byte-source.js';
import { readNetTraceSnapshot } from '../../../../../shared/formats/nettrace/read-nettrace-snapshot.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { NODE_UNDEFINED } from '../../../../../shared/graph/heap-graph.js';
import { fixturePath } from '../../../../helpers/fixtures.js';

/**
 * The only public trace with a real CoreCLR heap snapshot (shirhatti/Nettrace
 * `Nettrace.Sample/allocTrace.nettrace`, SHA-256 a3c7dc0b…fd84) has no licence, so it is not
 * among our fixtures; point HEAPSCOPE_ALLOCTRACE at a local copy (or drop it in
 * shared/fixtures/nettrace/) to run this golden test against expected-values.md §3.
 */
const path = process.env.HEAPSCOPE_ALLOCTRACE ?? fixturePath('nettrace/allocTrace.nettrace');
const present = path !== null && existsSync(path);

async function read(p: string): Promise<HeapGraph> {
  const src = await FileByteSource.open(p);
  try {
    return await readNetTraceSnapshot(src, { weakRoots: 'drop' });
  } finally {
    await src.close();
  }
}

describe.skipIf(!present)(`allocTrace.nettrace, a real .NET 5 heap snapshot${present ? '' : ' (set HEAPSCOPE_ALLOCTRACE to a local copy: skipped)'}`, () => {
  it('converts to the graph of expected-values.md §3', async () => {
    const g = await read(path!);
    const kids = (n: number) => Array.from(g.edgeTarget.subarray(g.firstEdge[n], g.firstEdge[n + 1]));
    const name = (n: number) => g.types.names[g.nodeType[n]];
    expect(g.nodeCount).toBe(327);
    expect(g.types.count).toBe(237);
    expect(Array.from(g.types.sizes).filter((s) => s === -1)).toHaveLength(141);
    expect(g.totalSize).toBe(104_887);
    expect(g.rootIndex).toBe(0);
    expect(name(0)).toBe('[.NET Roots]');
    expect(kids(0).map((n) => [n, name(n), kids(n).length])).toEqual([
      [1, '[static vars]', 32],
      [2, '[local vars]', 30],
      [9, '[other roots]', 2],
      [27, '[COM/WinRT Objects]', 0],
    ]);
    expect(kids(9).map((n) => [name(n), kids(n).length])).toEqual([
      ['[strong Handles]', 14],
      ['[pinning Handles]', 1],
    ]);
    expect(kids(2).filter((n) => n === 4).length).toBeGreaterThan(1); // the address-0 stack roots
    let undefinedNodes = 0;
    for (let n = 0; n < g.nodeCount; n++) if (g.nodeFlags[n] & NODE_UNDEFINED) undefinedNodes++;
    expect(undefinedNodes).toBe(1);
    expect(g.types.names).toContain('System.Collections.Generic.Dictionary<System.String,System.Object>');
    expect(g.types.names).toContain('[static var System.Collections.Generic.Dictionary<System.String,System.Object>.s_dataStore]');
    expect(g.types.names).toContain('System.Byte[] (Bytes > 1K)');
    expect(name(kids(kids(1)[0])[0])).toBe('System.String[]'); // s_commandLineArgs
    expect(g.metadata.extra).toMatchObject({ gcNumber: 1, objectsInDump: 287, referencesInDump: 312 });
    expect(g.hasGenerationData).toBe(true);
  });
});
