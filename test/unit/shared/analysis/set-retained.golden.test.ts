import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../shared/analysis/analyze.js';
import { computeSetRetained, prepareSetRetainedScratch, SET_RETAINED_STEP, SetRetainedWalk } from '../../../../shared/analysis/set-retained.js';
import { groupReachableInstances } from '../../../../shared/analysis/set-retained-scope.js';
import { readGcdump } from '../../../../shared/formats/gcdump/gcdump-reader.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { naiveReachableWithout, naiveSetRetained } from '../../../helpers/naive-set-retained.js';

/**
 * Golden run on a real .NET heap (a MAUI app on Android): every type's set retained size equals
 * the remove-and-rewalk oracle and is never below the type retained size, and the walks confined
 * to the instances' common-dominator subtrees scan 1/16 of what one full walk per type would. The recorded rows are
 * the types where the two figures differ most (instances that hold collections jointly); they
 * were computed here and agree with the oracle.
 */
const FILE = 'mono_android_20231108_150515_31024.gcdump';
const path = fixturePath(`gcdump/${FILE}`);

describe.skipIf(!path)(`set retained on ${FILE}${path ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('matches the oracle for every type with instances and is never below the type retained size', async () => {
    const g = await readGcdump(new MemoryByteSource(readFileSync(path!), path!), {});
    const a = analyzeGraph(g);
    const all = Array.from({ length: g.types.count }, (_, t) => t);
    const set = computeSetRetained(g, a, all);
    let differing = 0;
    for (const t of all) {
      expect(set[t], g.types.names[t]).toBeGreaterThanOrEqual(a.typeRetained[t]);
      if (set[t] > a.typeRetained[t]) differing++;
      if (a.typeReachableCount[t] === 0) expect(set[t]).toBe(0);
    }
    expect(differing).toBe(25);
    const recorded: [string, number, number][] = [
      ['Microsoft.Maui.Controls.VisualStateGroupList', 38408, 42016],
      ['System.Collections.Generic.List<Microsoft.Maui.Controls.VisualStateGroup>', 27256, 30656],
      ['Microsoft.Maui.Controls.VisualStateGroup[]', 26488, 29888],
      ['Microsoft.Maui.MauiContext', 2280, 3632],
      ['Microsoft.Maui.Controls.ResourceDictionary[]', 160, 1104],
    ];
    for (const [name, typeRetained, setRetained] of recorded) {
      const t = g.types.names.indexOf(name);
      expect([name, a.typeRetained[t], set[t]]).toEqual([name, typeRetained, setRetained]);
    }
    // the work: Σ nodes scanned over all types, against one full walk per type with instances
    const scratch = prepareSetRetainedScratch(g.nodeCount);
    const byType = groupReachableInstances(g, a.reachable);
    let scanned = 0;
    let withInstances = 0;
    for (const t of all) {
      const inst = byType.nodes.subarray(byType.start[t], byType.start[t + 1]);
      if (inst.length > 0) withInstances++;
      const w = new SetRetainedWalk(g, a, t, scratch, inst);
      while (!w.step(SET_RETAINED_STEP));
      expect(w.result).toBe(set[t]);
      scanned += w.scanned;
    }
    expect([withInstances, scanned]).toEqual([3210, 5_481_580]);
    expect(scanned).toBeLessThan((withInstances * a.reachableCount) / 15);
    // the oracle on every type that has reachable instances (the others are 0 by definition)
    const before = naiveReachableWithout(g, -1);
    for (const t of all) if (a.typeReachableCount[t] > 0) expect(set[t], g.types.names[t]).toBe(naiveSetRetained(g, t, before));
  }, 120_000);
});
