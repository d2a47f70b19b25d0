import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { duplicateStrings, nodesWithStringValue } from '../../../../shared/analysis/duplicate-strings.js';
import { readDumpStream } from '../../../../shared/formats/dump/dump-graph.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../helpers/dump-stream-writer.js';
import { mulberry32 } from '../../../helpers/prng.js';

const read = (w: DumpStreamWriter): Promise<HeapGraph> => readDumpStream(new MemoryByteSource(w.end().finish(), 'test.stream'));
const LONG = 'L'.repeat(1024);

/**
 * Static App.Items → Object[] → "a" ×3 (30 B each), "bb" ×2 (32 B), "c" (28 B), a cut-off long
 * value (4,122 B); unreachable: one more "a" and two "zz"; a weak handle holds a third "bb".
 */
function handBuilt(): DumpStreamWriter {
  const w = new DumpStreamWriter();
  w.type(0, 'System.Object[]').type(1, 'System.String');
  const items: [number, null][] = [0x2000, 0x3000, 0x4000, 0x5000, 0x6000, 0x7000, 0x8000].map((a) => [a, null]);
  w.object(0x1000, 0, 80, 2, items);
  w.object(0x2000, 1, 30, 2).stringValue(0x2000, 0, 'a', 1);
  w.object(0x3000, 1, 30, 2).stringValue(0x3000, 0, null, 1);
  w.object(0x4000, 1, 30, 2).stringValue(0x4000, 0, null, 1);
  w.object(0x5000, 1, 32, 2).stringValue(0x5000, 1, 'bb', 2);
  w.object(0x6000, 1, 32, 2).stringValue(0x6000, 1, null, 2);
  w.object(0x7000, 1, 28, 2).stringValue(0x7000, 2, 'c', 1);
  w.object(0x8000, 1, 4122, 2).stringValue(0x8000, 3, LONG, 2050);
  w.object(0x9000, 1, 30, 0).stringValue(0x9000, 0, null, 1);
  w.object(0xa000, 1, 32, 0).stringValue(0xa000, 4, 'zz', 2);
  w.object(0xb000, 1, 32, 0).stringValue(0xb000, 4, null, 2);
  w.object(0xc000, 1, 32, 0).stringValue(0xc000, 1, null, 2);
  w.root(1, 'App', 'Items', 0x1000);
  w.root(8, null, null, 0xc000);
  return w;
}

describe('duplicate strings', () => {
  it('counts copies, total and wasted bytes per value over reachable strings only (hand-built graph)', async () => {
    const g = await read(handBuilt());
    const a = analyzeGraph(g);
    const r = duplicateStrings(g, a.reachable)!;
    expect(r.rows).toEqual([
      { valueId: 0, value: 'a', length: 1, truncated: false, count: 3, totalBytes: 90, wastedBytes: 60 },
      { valueId: 1, value: 'bb', length: 2, truncated: false, count: 2, totalBytes: 64, wastedBytes: 32 },
    ]);
    expect({ valueCount: r.valueCount, stringCount: r.stringCount, stringBytes: r.stringBytes, wastedBytes: r.wastedBytes }).toEqual({
      valueCount: 2,
      stringCount: 7,
      stringBytes: 90 + 64 + 28 + 4122,
      wastedBytes: 92,
    });
  });

  it('--min-count 1 lists every value (ties on wasted and count in first-seen order); top cuts after sorting', async () => {
    const g = await read(handBuilt());
    const a = analyzeGraph(g);
    const all = duplicateStrings(g, a.reachable, { minCount: 1 })!;
    expect(all.rows.map((x) => [x.value.slice(0, 3), x.count, x.totalBytes, x.wastedBytes, x.truncated])).toEqual([
      ['a', 3, 90, 60, false],
      ['bb', 2, 64, 32, false],
      ['c', 1, 28, 0, false],
      ['LLL', 1, 4122, 0, true],
    ]);
    expect(all.valueCount).toBe(4);
    const three = duplicateStrings(g, a.reachable, { minCount: 3 })!;
    expect(three.rows.map((x) => x.value)).toEqual(['a']);
    const top1 = duplicateStrings(g, a.reachable, { minCount: 1, top: 1 })!;
    expect(top1.rows.map((x) => x.value)).toEqual(['a']);
    expect(top1.valueCount).toBe(4);
    expect(top1.wastedBytes).toBe(92);
  });

  it('lists the reachable instances of one value in node order', async () => {
    const g = await read(handBuilt());
    const a = analyzeGraph(g);
    expect(nodesWithStringValue(g, a.reachable, 0)).toEqual([1, 2, 3]);
    expect(nodesWithStringValue(g, a.reachable, 1)).toEqual([4, 5]);
    expect(nodesWithStringValue(g, a.reachable, 0, 2)).toEqual([1, 2]);
    expect(nodesWithStringValue(g, a.reachable, 4)).toEqual([]);
  });

  it('is null for a graph without string contents', async () => {
    const w = new DumpStreamWriter();
    w.type(0, 'System.String').object(0x1000, 0, 30, 0).root(3, null, null, 0x1000);
    const g = await read(w);
    expect(duplicateStrings(g, analyzeGraph(g).reachable)).toBeNull();
  });

  it('agrees with a naive oracle on random dump streams', async () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rnd = mulberry32(seed);
      const pick = (k: number): number => Math.floor(rnd() * k);
      const n = 5 + pick(120);
      const pool = Array.from({ length: 1 + pick(12) }, (_, i) => ({ text: `v${i}`.padEnd(1 + pick(6), '.'), length: 0 }));
      for (const p of pool) p.length = p.text.length + (rnd() < 0.2 ? 1 + pick(3000) : 0);
      const w = new DumpStreamWriter();
      w.type(0, 'Node').type(1, 'System.String');
      const isString: boolean[] = [];
      const valueOf: number[] = [];
      const size: number[] = [];
      const refs: number[][] = [];
      const streamId = new Map<number, number>();
      for (let i = 0; i < n; i++) {
        const s = rnd() < 0.6;
        isString.push(s);
        const v = s ? pick(pool.length) : -1;
        valueOf.push(v);
        size.push(s ? 22 + 2 * pool[v].length : 24 + pick(100));
        refs.push(s ? [] : Array.from({ length: pick(4) }, () => pick(n)));
      }
      for (let i = 0; i < n; i++) {
        const addr = 0x1000 * (i + 1);
        w.object(addr, isString[i] ? 1 : 0, size[i], 0, refs[i].map((t) => [0x1000 * (t + 1), null]));
        if (!isString[i]) continue;
        const v = valueOf[i];
        const known = streamId.get(v);
        if (known === undefined) streamId.set(v, streamId.size);
        w.stringValue(addr, known ?? streamId.get(v)!, known === undefined ? pool[v].text : null, pool[v].length);
      }
      const strong: number[] = [];
      for (let k = pick(6); k >= 0; k--) {
        const target = pick(n);
        const weak = rnd() < 0.3;
        w.root(weak ? 8 : 3, null, null, 0x1000 * (target + 1));
        if (!weak) strong.push(target);
      }
      const g = await read(w);
      // Oracle: reachability over the objects as generated, grouping by the value's text.
      const seen = new Array<boolean>(n).fill(false);
      const stack = [...strong];
      while (stack.length > 0) {
        const x = stack.pop()!;
        if (seen[x]) continue;
        seen[x] = true;
        stack.push(...refs[x]);
      }
      const groups = new Map<number, { count: number; total: number; one: number }>();
      for (let i = 0; i < n; i++) {
        if (!isString[i] || !seen[i]) continue;
        const gr = groups.get(valueOf[i]) ?? { count: 0, total: 0, one: size[i] };
        gr.count++;
        gr.total += size[i];
        groups.set(valueOf[i], gr);
      }
      const minCount = 1 + pick(3);
      const top = rnd() < 0.5 ? undefined : pick(5);
      const expected = [...groups]
        .filter(([, gr]) => gr.count >= minCount)
        .map(([v, gr]) => ({ id: streamId.get(v)!, value: pool[v].text, length: pool[v].length, count: gr.count, total: gr.total, wasted: gr.total - gr.one }))
        .sort((x, y) => y.wasted - x.wasted || y.count - x.count || x.id - y.id);
      const got = duplicateStrings(g, analyzeGraph(g).reachable, { minCount, top })!;
      expect(got.valueCount, `seed ${seed}`).toBe(expected.length);
      expect(got.wastedBytes, `seed ${seed}`).toBe(expected.reduce((s, x) => s + x.wasted, 0));
      expect(
        got.rows.map((r) => [r.valueId, r.value, r.length, r.count, r.totalBytes, r.wastedBytes]),
        `seed ${seed}`,
      ).toEqual(expected.slice(0, top ?? expected.length).map((x) => [x.id, x.value, x.length, x.count, x.total, x.wasted]));
    }
  });
});
