import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readGcdump } from '../../../../shared/formats/gcdump/gcdump-reader.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import type { FileEntry, FileToken, SessionId } from '../../../../shared/ipc/contract.js';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';

// Golden run of the grouped dominator tree and "Retained by" (issue 14) on a real dotnet-gcdump
// file. The recorded rows come from this implementation; every figure is cross-checked below by
// an independent computation (idom chains walked per node, Maps per type) and against the
// per-type retained sizes of type-retained.ts (a different walk over a different tree layout).
const file = 'mono_android_20231108_150515_31024.gcdump';
const path = fixturePath(`gcdump/${file}`);
const FILE: FileEntry = { token: 'tok' as FileToken, name: file, displayPath: file, size: 1, modifiedMs: 0, source: 'path', formatHint: 'gcdump', exists: true };

describe.skipIf(!path)(`grouped dominator tree on ${file}${path ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('groups, instances and retained-by agree with an independent computation', async () => {
    const g = await readGcdump(new MemoryByteSource(readFileSync(path!), path!), {});
    const s = new SnapshotSession(g, { sessionId: 's1' as SessionId, file: FILE, parseMs: 1 });
    s.runAnalysis();
    const info = (n: number) => s.objectInfo({ node: n });
    const tc = g.types.count;
    const root = g.rootIndex;

    // idom and retained per node through the public query, then outermost by walking the chain
    const idom = new Uint32Array(g.nodeCount).fill(NONE);
    const retained = new Float64Array(g.nodeCount);
    const reachable = new Uint8Array(g.nodeCount);
    for (let v = 0; v < g.nodeCount; v++) {
      const o = info(v);
      idom[v] = o.dominator ?? NONE;
      retained[v] = o.retainedSize!;
      reachable[v] = o.reachable ? 1 : 0;
    }
    const count = new Float64Array(tc);
    const bytes = new Float64Array(tc);
    for (let v = 0; v < g.nodeCount; v++) {
      if (!reachable[v] || v === root) continue;
      let outer = true;
      for (let d = idom[v]; d !== NONE && outer; d = idom[d]) if (d !== root && g.nodeType[d] === g.nodeType[v]) outer = false;
      if (!outer) continue;
      count[g.nodeType[v]]++;
      bytes[g.nodeType[v]] += retained[v];
    }
    const groups = s.dominatorTypeGroups({ start: 0, end: 10_000 });
    expect(groups.total).toBe([...count].filter((c) => c > 0).length);
    for (const r of groups.rows) {
      expect([r.count, r.retainedSize]).toEqual([count[r.typeIndex], bytes[r.typeIndex]]);
    }
    // the group's retained size is the Types view's retained size
    const types = s.typeRows({ sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 10_000 }).rows;
    let compared = 0;
    for (const t of types) {
      const r = groups.rows.find((x) => x.typeIndex === t.typeIndex);
      if (!r) continue;
      expect(r.retainedSize).toBe(t.retainedSize);
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
    // recorded: the three largest groups
    expect(groups.rows.slice(0, 3).map((r) => [r.type, r.count, r.reachableCount, r.retainedSize])).toEqual([
      ['[static vars]', 1, 1, 725320],
      ['[other roots]', 1, 1, 723592],
      ['[other Handles]', 1, 1, 715872],
    ]);

    expect(groups.rows.filter((r) => !r.pseudo).slice(0, 3).map((r) => [r.type, r.count, r.reachableCount, r.retainedSize])).toEqual([
      ['System.String', 4174, 4174, 285248],
      ['System.Reflection.RuntimeMethodInfo', 2827, 2827, 197224],
      ['System.RuntimeType', 3392, 3392, 168328],
    ]);
    // instances: sorted, and summing to the group
    const top = groups.rows[0];
    const inst = s.dominatorTypeInstances({ typeIndex: top.typeIndex, start: 0, end: 10_000 });
    expect(inst.total).toBe(top.count);
    expect(inst.rows.reduce((x, r) => x + r.retainedSize, 0)).toBe(top.retainedSize);
    for (let i = 1; i < inst.rows.length; i++) expect(inst.rows[i - 1].retainedSize).toBeGreaterThanOrEqual(inst.rows[i].retainedSize);

    // retained by, for the ten types with the most instances
    const byCount = s.typeRows({ sort: { key: 'count', dir: 'desc' }, start: 0, end: 10 }).rows;
    for (const t of byCount) {
      const want = new Map<number, [number, number]>();
      let unreachable = 0;
      for (let v = 0; v < g.nodeCount; v++) {
        if (g.nodeType[v] !== t.typeIndex || info(v).pseudo) continue;
        if (!reachable[v]) {
          unreachable++;
          continue;
        }
        const e = want.get(g.nodeType[idom[v]]) ?? [0, 0];
        e[0]++;
        e[1] += retained[v];
        want.set(g.nodeType[idom[v]], e);
      }
      const rb = s.retainedBy({ typeIndex: t.typeIndex });
      expect(new Map(rb.rows.map((r) => [r.typeIndex, [r.count, r.retainedSize]]))).toEqual(want);
      expect(rb.unreachableCount).toBe(unreachable);
      expect(rb.reachableCount + rb.unreachableCount).toBe(t.count);
    }
    const str = g.types.names.indexOf('System.String');
    expect(s.retainedBy({ typeIndex: str }).rows.slice(0, 3).map((r) => [r.type, r.count, r.retainedSize])).toEqual([
      ['System.Reflection.RuntimeFieldInfo', 1214, 79312],
      ['[.NET Roots]', 1059, 78072], // held from more than one root category: only the root node dominates them
      ['[other Handles]', 934, 66104],
    ]);
  });
});
