import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../shared/analysis/analyze.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../shared/graph/heap-graph.js';
import { ObjectInspectorView } from '../../shared/session/object-inspector-view.js';
import { ObjectView } from '../../shared/session/object-view.js';
import { loadSnapshot } from '../../electron/cli/load.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';

// Golden runs of the object inspector on real dumps. perfview_test1 numbers come from
// /work/shared/spec/expected-values.md §1.1 (checked against PerfView's own reader): node 6481 is
// `langChooser_params (Type  JSObject)`, 16 bytes at 0x6d1be90, with one child, node 515; the
// root has two children (1 and 3175, both `(Type  JSGlobal)`, 256 bytes); no node has more than
// 585 children.
const test1 = fixturePath('gcdump/perfview_test1.gcdump');
const test2 = fixturePath('gcdump/perfview_test2.gcdump');
const quiet = { write() {} };

async function open(path: string) {
  const g = (await loadSnapshot(path, quiet)).graph;
  const a = analyzeGraph(g);
  const objects = new ObjectView(g);
  return { g, a, v: new ObjectInspectorView(g, (n) => objects.hex(n)) };
}

describe.skipIf(!test1)(`inspector on perfview_test1.gcdump${test1 ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('finds node 6481 by its address and lists its reference both ways', async () => {
    const { a, v } = await open(test1!);
    const hit = v.atAddress(a, '0x6d1be90');
    expect(hit).toMatchObject({ offset: 0, object: { node: 6481, type: 'langChooser_params (Type  JSObject)', size: 16, outgoing: 1, addressKind: 'address' } });
    expect(v.atAddress(a, '0x6D1BE9F')).toMatchObject({ offset: 15, object: { node: 6481 } });
    expect(v.references(a, 6481, 'outgoing', 0, 200).rows.map((r) => r.node)).toEqual([515]);
    const back = v.references(a, 515, 'incoming', 0, 10_000);
    expect(back.rows.map((r) => r.node)).toContain(6481);
    const root = v.references(a, 0, 'outgoing', 0, 200);
    expect(root.rows.map((r) => [r.node, r.type, r.size])).toEqual([
      [1, '(Type  JSGlobal)', 256],
      [3175, '(Type  JSGlobal)', 256],
    ]);
    expect(v.info(a, 0)).toMatchObject({ pseudo: true, addressKind: 'none', outgoing: 2 });
  });

  it('pages the widest object (585 references) in windows of 200', async () => {
    const { g, a, v } = await open(test1!);
    let hub = 0;
    for (let n = 0; n < g.nodeCount; n++) if (g.firstEdge[n + 1] - g.firstEdge[n] > g.firstEdge[hub + 1] - g.firstEdge[hub]) hub = n;
    expect(v.info(a, hub).outgoing).toBe(585);
    const pages = [0, 200, 400].map((s) => v.references(a, hub, 'outgoing', s, s + 200));
    expect(pages.map((p) => p.rows.length)).toEqual([200, 200, 185]);
    expect(pages.flatMap((p) => p.rows.map((r) => r.node))).toEqual(Array.from(g.edgeTarget.subarray(g.firstEdge[hub], g.firstEdge[hub + 1])));
  });
});

describe.skipIf(!test2)(`go to address on perfview_test2.gcdump${test2 ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('every object is found at its own address, and at its last byte unless another object starts inside it', async () => {
    const { g, a, v } = await open(test2!);
    const starts = new BigUint64Array(g.nodeCount);
    let k = 0;
    for (let n = 0; n < g.nodeCount; n++) if (!(g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) && g.address[n] !== 0n) starts[k++] = g.address[n];
    const sorted = starts.subarray(0, k).sort();
    /** First start above x (binary search over the natively sorted addresses). */
    const nextStart = (x: bigint): bigint => {
      let lo = 0;
      let hi = sorted.length;
      while (lo < hi) {
        const m = (lo + hi) >>> 1;
        if (sorted[m] <= x) lo = m + 1;
        else hi = m;
      }
      return lo < sorted.length ? sorted[lo] : 2n ** 64n;
    };
    let checked = 0;
    let overlapped = 0;
    for (let n = 0; n < g.nodeCount; n++) {
      if (g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED) || g.address[n] === 0n) continue;
      expect(v.atAddress(a, '0x' + g.address[n].toString(16))?.object.node).toBe(n);
      const last = g.address[n] + BigInt(g.selfSize[n] - 1);
      if (g.selfSize[n] > 1 && nextStart(g.address[n]) > last) {
        expect(v.atAddress(a, '0x' + last.toString(16))).toMatchObject({ object: { node: n }, offset: g.selfSize[n] - 1 });
      } else if (g.selfSize[n] > 1) overlapped++;
      checked++;
    }
    expect(checked).toBe(k);
    // all nodes but 18 undefined ones and 2,155 pseudo-nodes: the root, 6 categories and 2,148 static-variable holders
    expect(k).toBe(140_391 - 18 - 2_155);
    expect(overlapped).toBeLessThan(checked / 100); // the walk's sizes rarely overlap the next object
  });
});
