import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../shared/analysis/analyze.js';
import { dominatorGrowth, leastSquaresSlope, rankedBy } from '../../../../shared/analysis/dominator-growth.js';
import { defaultRetainerMinBytes, retainerSignatures } from '../../../../shared/analysis/dominator-signatures.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';
import { tinyGraph, type TinyGraph } from '../../../helpers/graph-builder.js';

/**
 * Three snapshots of one "process": a List whose array gains an Item per snapshot, two Holder
 * siblings (same signature, told apart by rank) that swap their order of size in the third, and
 * a Late retainer that only the third has. Threshold 50 bytes.
 */
function snapshot(items: number, h1Blob: number, h2Blob: number, late: boolean): TinyGraph {
  return tinyGraph((b) => {
    const other = b.root('[other roots]').ref('L', 'H1', 'H2');
    if (late) other.ref('Late');
    b.node('L', 24, 'List').ref('A');
    const arr = b.node('A', 40, 'Item[]');
    for (let i = 1; i <= items; i++) {
      arr.ref(`i${i}`);
      b.node(`i${i}`, 100, 'Item');
    }
    b.node('H1', 30, 'Holder').ref('X1');
    b.node('X1', h1Blob, 'Blob');
    b.node('H2', 30, 'Holder').ref('X2');
    b.node('X2', h2Blob, 'Blob');
    if (late) b.node('Late', 300, 'Late');
  });
}

function signaturesOf(t: TinyGraph, label: string, minBytes = 50) {
  return retainerSignatures(t.graph, analyzeDominance(t.graph), label, { minBytes });
}

const S = ' › ';

describe('retainerSignatures', () => {
  it('names each retainer by its dominator chain, ranking same-type siblings by retained size', () => {
    const s = signaturesOf(snapshot(2, 200, 100, false), 's1');
    expect(s.entries.map((e) => [e.signature, e.depth, e.retained])).toEqual([
      [`[other roots]${S}List`, 2, 264],
      [`[other roots]${S}List${S}Item[]`, 3, 240],
      [`[other roots]${S}List${S}Item[]${S}Item`, 4, 100],
      [`[other roots]${S}List${S}Item[]${S}Item #2`, 4, 100],
      [`[other roots]${S}Holder`, 2, 230],
      [`[other roots]${S}Holder${S}Blob`, 3, 200],
      [`[other roots]${S}Holder #2`, 2, 130],
      [`[other roots]${S}Holder #2${S}Blob`, 3, 100],
    ]);
    expect(s.entries[0].path).toEqual(['[other roots]', 'List']);
  });

  it('stops below minBytes and at maxDepth', () => {
    const t = snapshot(2, 200, 100, false);
    const a = analyzeDominance(t.graph);
    expect(retainerSignatures(t.graph, a, 'x', { minBytes: 150 }).entries.map((e) => e.signature)).toEqual([
      `[other roots]${S}List`,
      `[other roots]${S}List${S}Item[]`,
      `[other roots]${S}Holder`,
      `[other roots]${S}Holder${S}Blob`,
    ]);
    expect(retainerSignatures(t.graph, a, 'x', { minBytes: 0, maxDepth: 2 }).entries.map((e) => e.signature)).toEqual([
      `[other roots]${S}List`,
      `[other roots]${S}Holder`,
      `[other roots]${S}Holder #2`,
    ]);
  });

  it('prefixes the field name when the dominator holds the node through a named field', () => {
    const t = tinyGraph((b) => {
      b.root('[other roots]').ref('C');
      b.node('C', 10, 'Cache').ref('M', 'N');
      b.node('M', 100, 'Dictionary');
      b.node('N', 60, 'Dictionary');
    });
    const c = t.id('C');
    const fieldNames = ['byName', 'byId'];
    const edgeFieldName = new Uint32Array(t.graph.edgeCount).fill(NONE);
    const e0 = t.graph.firstEdge[c];
    edgeFieldName[e0] = 0; // C.byName → M
    edgeFieldName[e0 + 1] = 1; // C.byId → N
    const g = { ...t.graph, edgeFieldName, fieldNames };
    const s = retainerSignatures(g, analyzeDominance(g), 'f', { minBytes: 0 });
    expect(s.entries.map((e) => e.signature)).toEqual([`[other roots]${S}Cache`, `[other roots]${S}Cache${S}byName: Dictionary`, `[other roots]${S}Cache${S}byId: Dictionary`]);
  });

  it("keeps a growing array's signature when dotnet-gcdump moves it to a bigger size bucket", () => {
    const sig = (size: number, type: string) =>
      signaturesOf(
        tinyGraph((b) => {
          b.root('[static vars]').ref('V');
          b.node('V', size, type);
        }),
        type,
      );
    const t = dominatorGrowth([sig(5_000, 'System.Byte[] (Bytes > 1K)'), sig(50_000, 'System.Byte[] (Bytes > 10K)')]);
    expect(t.rows.map((r) => [r.signature, r.retained, r.type])).toEqual([[`[static vars]${S}System.Byte[]`, [5_000, 50_000], 'System.Byte[] (Bytes > 10K)']]);
  });

  it('stops when cancelled', () => {
    const t = snapshot(2, 200, 100, false);
    const c = new CancellationSource();
    c.cancel();
    expect(() => retainerSignatures(t.graph, analyzeDominance(t.graph), 'x', { token: c })).toThrow(/cancel/i);
  });

  it('defaults the threshold to 0.01% of the reachable heap, at least 1 KiB', () => {
    expect(defaultRetainerMinBytes(5_000)).toBe(1024);
    expect(defaultRetainerMinBytes(123_456_789)).toBe(12_345);
  });
});

describe('dominatorGrowth', () => {
  const trend = () =>
    dominatorGrowth([
      signaturesOf(snapshot(2, 200, 100, false), 's1'),
      signaturesOf(snapshot(3, 200, 150, false), 's2'),
      signaturesOf(snapshot(4, 120, 150, true), 's3'),
    ]);

  it('gives each growing signature its series, growth, growing steps, steadiness and slope', () => {
    const t = trend();
    expect(t.labels).toEqual(['s1', 's2', 's3']);
    expect(t.minBytes).toEqual([50, 50, 50]);
    // List, Item[], Item ×4, Holder, Holder #2, their two Blobs, Late
    expect(t.retainersSeen).toBe(11);
    expect(t.rows.map((r) => [r.signature, r.retained, r.growth, r.growingSteps, r.steadiness, r.slope, r.growthRank, r.steadinessRank])).toEqual([
      [`[other roots]${S}Late`, [0, 0, 300], 300, 1, 0.5, 150, 1, 3],
      [`[other roots]${S}List`, [264, 364, 464], 200, 2, 1, 100, 2, 1],
      [`[other roots]${S}List${S}Item[]`, [240, 340, 440], 200, 2, 1, 100, 3, 2],
      [`[other roots]${S}List${S}Item[]${S}Item #3`, [0, 100, 100], 100, 1, 0.5, 50, 4, 4],
      [`[other roots]${S}List${S}Item[]${S}Item #4`, [0, 0, 100], 100, 1, 0.5, 50, 5, 5],
      // the Holders swap their order of size in s3, so "Holder #2" is H2 then H1 there: the heuristic's limit
      [`[other roots]${S}Holder #2`, [130, 180, 150], 20, 1, 0.5, 10, 6, 6],
      [`[other roots]${S}Holder #2${S}Blob`, [100, 150, 120], 20, 1, 0.5, 10, 7, 7],
    ]);
    const late = t.rows[0];
    expect(late.present).toEqual([false, false, true]);
    expect(late.depth).toBe(2);
    expect(rankedBy(t.rows, 'steadiness').map((r) => r.steadinessRank)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(rankedBy(t.rows, 'steadiness')[0].signature).toBe(`[other roots]${S}List`);
  });

  it('points at the node in the last snapshot', () => {
    const s3 = snapshot(4, 120, 150, true);
    const t = dominatorGrowth([signaturesOf(snapshot(2, 200, 100, false), 's1'), signaturesOf(s3, 's3')]);
    expect(t.rows.find((r) => r.type === 'Late')!.lastNode).toBe(s3.id('Late'));
    expect(t.rows.find((r) => r.type === 'Late')!.lastAddress).toBe('0x' + (0x1000 + s3.id('Late') * 0x10).toString(16));
    expect(t.rows.find((r) => r.type === 'List')!.lastNode).toBe(s3.id('L'));
  });

  it('needs two snapshots; the slope is least squares over the index', () => {
    expect(() => dominatorGrowth([signaturesOf(snapshot(1, 60, 60, false), 'a')])).toThrow(/at least 2/);
    expect(leastSquaresSlope([1, 2, 3])).toBe(1);
    expect(leastSquaresSlope([0, 100, 100])).toBe(50);
    expect(leastSquaresSlope([10, 0, 10, 0])).toBe(-2);
  });
});
