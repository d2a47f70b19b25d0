import { describe, expect, it } from 'vitest';
import { readDumpStream } from '../../../../../shared/formats/dump/dump-graph.js';
import { edgeFieldNameOf, NODE_PSEUDO } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../../helpers/dump-stream-writer.js';
import { mulberry32 } from '../../../../helpers/prng.js';

/**
 * Random heaps against a naive oracle: objects in a Map by address, references resolved one by
 * one, dependent-handle values appended to their key's row in handle order. The decoder must give
 * every object the same row (targets and field names), the same root count and the same
 * dropped-reference count.
 */
describe('dump stream decoder vs a naive oracle', () => {
  it('matches on 40 random heaps (addresses above 2^32, dangling targets, dependent handles)', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rnd = mulberry32(seed);
      const n = 1 + Math.floor(rnd() * 60);
      const addrs: bigint[] = [];
      let a = 0x7f00_0000_0000n + BigInt(Math.floor(rnd() * 1000)) * 8n;
      for (let i = 0; i < n; i++) {
        addrs.push(a);
        a += BigInt(8 + Math.floor(rnd() * 4) * 8) + (rnd() < 0.1 ? 0x1_0000_0000n : 0n);
      }
      const index = new Map(addrs.map((x, i) => [x, i]));
      const fields = ['a', 'b', 'c', null];
      const w = new DumpStreamWriter();
      w.type(0, 'T0').type(1, 'T1');
      const expected: string[][] = [];
      let dropped = 0;
      for (let i = 0; i < n; i++) {
        const refs: [bigint, string | null][] = [];
        const k = Math.floor(rnd() * 5);
        for (let j = 0; j < k; j++) {
          const dangling = rnd() < 0.1;
          refs.push([dangling ? addrs[Math.floor(rnd() * n)] + 4n : addrs[Math.floor(rnd() * n)], fields[Math.floor(rnd() * fields.length)]]);
        }
        w.object(addrs[i], i % 2, 8 + i, i % 3, refs);
        expected.push([]);
        for (const [t, f] of refs) {
          const target = index.get(t);
          if (target === undefined) dropped++;
          else expected[i].push(`${target}:${f ?? ''}`);
        }
      }
      const roots = 1 + Math.floor(rnd() * 10);
      for (let r = 0; r < roots; r++) w.root(Math.floor(rnd() * 11), 'g', 'x', addrs[Math.floor(rnd() * n)]);
      const deps = Math.floor(rnd() * 4);
      const depPairs: [number, number][] = [];
      for (let d = 0; d < deps; d++) depPairs.push([Math.floor(rnd() * n), Math.floor(rnd() * n)]);
      for (const [k, v] of depPairs) w.dependent(addrs[k], addrs[v]);
      // Oracle: dependent values follow the key's own references, in handle order.
      for (const [k, v] of depPairs) expected[k].push(`${v}:(dependent handle)`);

      const g = await readDumpStream(new MemoryByteSource(w.end().finish()));
      const got: string[][] = [];
      for (let i = 0; i < n; i++) {
        const row: string[] = [];
        for (let e = g.firstEdge[i]; e < g.firstEdge[i + 1]; e++) row.push(`${g.edgeTarget[e]}:${edgeFieldNameOf(g, e) ?? ''}`);
        got.push(row);
      }
      expect(got, `seed ${seed}`).toEqual(expected);
      expect([...g.address.subarray(0, n)]).toEqual(addrs);
      let rootEdges = 0;
      for (let p = n; p < g.nodeCount; p++) {
        expect(g.nodeFlags[p] & NODE_PSEUDO).toBe(NODE_PSEUDO);
        for (let e = g.firstEdge[p]; e < g.firstEdge[p + 1]; e++) if (g.edgeTarget[e] < n) rootEdges++;
      }
      expect(rootEdges, `seed ${seed}`).toBe(roots);
      expect(g.problems.counts['dangling-reference'] ?? 0, `seed ${seed}`).toBe(dropped);
    }
  });
});
