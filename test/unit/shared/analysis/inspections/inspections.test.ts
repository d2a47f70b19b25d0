import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../../shared/analysis/analyze.js';
import { inspectAccumulation } from '../../../../../shared/analysis/inspections/accumulation.js';
import { isDelegateTypeName } from '../../../../../shared/analysis/inspections/delegate-retention.js';
import { baseTypeName, makeContext } from '../../../../../shared/analysis/inspections/finding.js';
import { baselineOf, runInspections, type Finding } from '../../../../../shared/analysis/inspections/index.js';
import { CancellationSource, NEVER_CANCELLED } from '../../../../../shared/util/cancellation.js';
import { tinyGraph, type TinyGraph } from '../../../../helpers/graph-builder.js';

/**
 * One hand-built heap with every pattern, exact figures worked out by hand:
 *
 *   [static var App.Bus] → Bus(24) → EH(64, multicast) → IL(Object[], 40) → h1, h2, h3 (EventHandler, 64)
 *     h1 → P1(Page, 100) → Payload(Byte[], 50);  h2 → P2(Page, 100);  h3 → P3(Page, 100) ← [local vars]
 *   [other roots] → TQ(TimerQueue, 16) → TQT(TimerQueueTimer, 48) → TC(TimerCallback, 64) → Clock(32) → State(Byte[], 124)
 *   [finalizer Handles] → F1(Res, 40) → F1data(Byte[], 60);  F2(Res, 40);  G(Gen2GcCallback, 24);  F4(Res, 40) ← [local vars]
 *   [static var App.Items] → List(32) → Arr(Item[], 40) → I1, I2, I3, I4 (Item, 30); I4 → S(String, 10)
 *   [static var App.Blob] → Big(Byte[], 90,000)
 */
function heap(items = 4): TinyGraph {
  return tinyGraph((b) => {
    b.root('[static vars]').ref('[static var App.Bus]', '[static var App.Items]', '[static var App.Blob]');
    b.root('[static var App.Bus]').ref('Bus');
    b.root('[static var App.Items]').ref('List');
    b.root('[static var App.Blob]').ref('Big');
    b.root('[local vars]').ref('P3', 'F4');
    b.root('[other roots]').ref('TQ', '[finalizer Handles]');
    b.root('[finalizer Handles]').ref('F1', 'F2', 'G', 'F4');
    b.node('Big', 90_000, 'System.Byte[]');
    b.node('Bus', 24, 'Pub.Bus').ref('EH');
    b.node('EH', 64, 'System.EventHandler').ref('IL');
    b.node('IL', 40, 'System.Object[]').ref('h1', 'h2', 'h3');
    for (const [h, p] of [['h1', 'P1'], ['h2', 'P2'], ['h3', 'P3']]) {
      b.node(h, 64, 'System.EventHandler').ref(p);
      b.node(p, 100, 'Page');
    }
    b.node('P1', 100, 'Page').ref('Payload');
    b.node('Payload', 50, 'System.Byte[]');
    b.node('TQ', 16, 'System.Threading.TimerQueue').ref('TQT');
    b.node('TQT', 48, 'System.Threading.TimerQueueTimer').ref('TC');
    b.node('TC', 64, 'System.Threading.TimerCallback').ref('Clock');
    b.node('Clock', 32).ref('State');
    b.node('State', 124, 'System.Byte[]');
    b.node('F1', 40, 'Res').ref('F1data');
    b.node('F1data', 60, 'System.Byte[]');
    b.node('F2', 40, 'Res');
    b.node('F4', 40, 'Res');
    b.node('G', 24, 'System.Gen2GcCallback');
    const names = Array.from({ length: items }, (_, i) => `I${i + 1}`);
    b.node('List', 32, 'List<Item>').ref('Arr');
    b.node('Arr', 40, 'Item[]').ref(...names);
    for (const n of names) b.node(n, 30, 'Item');
    b.node(names[names.length - 1], 30, 'Item').ref('S');
    b.node('S', 10, 'System.String');
  });
}

const of = (fs: Finding[], kind: string) => fs.filter((f) => f.kind === kind);
const brief = (f: Finding) => ({ objects: f.objects, bytes: f.bytes, shallowBytes: f.shallowBytes, examples: f.examples.map((e) => e.node) });

describe('inspections on a hand-built heap', () => {
  const t = heap();
  const a = analyzeDominance(t.graph);
  const r = runInspections(t.graph, a);

  it('event-handler leak: the two Pages only the Bus event keeps, not the one a local also holds', () => {
    const fs = of(r.findings, 'event-handler-leak');
    expect(fs.map(brief)).toEqual([{ objects: 2, bytes: 250, shallowBytes: 200, examples: [t.id('P1'), t.id('P2')] }]);
    expect(fs[0].details).toMatchObject({ subscriberType: 'Page', publisherNode: t.id('Bus'), publisherType: 'Pub.Bus', staticField: null });
  });

  it('timer-held: the Clock behind TimerQueueTimer → TimerCallback, and not as an event leak', () => {
    expect(of(r.findings, 'timer-held').map(brief)).toEqual([{ objects: 1, bytes: 156, shallowBytes: 32, examples: [t.id('Clock')] }]);
  });

  it('finalization: Res objects only the queue holds, without Gen2GcCallback or the one a local holds', () => {
    const fs = of(r.findings, 'finalization');
    expect(fs.map(brief)).toEqual([{ objects: 2, bytes: 140, shallowBytes: 80, examples: [t.id('F1'), t.id('F2')] }]);
    expect(fs[0].details).toEqual({ type: 'Res' });
  });

  it('accumulation points with small thresholds: the invocation list and the Item array, not the List', () => {
    const ctx = makeContext(t.graph, a, NEVER_CANCELLED, 2);
    const fs = inspectAccumulation(ctx, { minShare: 0.001, minChildren: 3, maxLargestChildShare: 0.5 });
    // IL: 40 + 3 × 64 + P1 150 + P2 100 = 482, largest child h1 = 214 ≤ 241
    // Arr: 40 + 4 × 30 + 10 = 170, largest child I4 = 40 ≤ 85; List has 1 child.
    // shallowBytes: the children's (3 × 64, 4 × 30)
    expect(fs.map((f) => [t.name(f.details.node as number), f.objects, f.bytes, f.shallowBytes, f.details.elementType, f.details.elementCount, f.details.largestChildBytes])).toEqual([
      ['IL', 3, 482, 192, 'System.EventHandler', 3, 214],
      ['Arr', 4, 170, 120, 'Item', 4, 40],
    ]);
    expect(fs[1].examples.map((e) => e.node)).toEqual([t.id('I4'), t.id('I1')]);
    // with the default thresholds (≥ 100 children) nothing here qualifies
    expect(of(r.findings, 'accumulation-point')).toEqual([]);
  });

  it('large objects: the 90,000-byte array; no generation data, so no LOH share', () => {
    expect(of(r.findings, 'large-objects').map(brief)).toEqual([{ objects: 1, bytes: 90_000, shallowBytes: 90_000, examples: [t.id('Big')] }]);
    expect(r.largeHeapShare).toBeNull();
  });

  it('statics: exact retained of what each field references, largest first', () => {
    const fs = of(r.findings, 'static-field');
    // Bus: 24 + 64 + 40 + 192 + 250 = 570 over Bus, EH, IL, h1–h3, P1, Payload, P2 (P3 is also a
    // local's); List: 32 + 170 = 202 over List, Arr, I1–I4, S
    expect(fs.map((f) => [f.details.field, f.objects, f.bytes, f.shallowBytes])).toEqual([
      ['App.Blob', 1, 90_000, 90_000],
      ['App.Bus', 9, 570, 570],
      ['App.Items', 7, 202, 202],
    ]);
  });

  it('says content inspections need a dump, and finds no growth without a baseline', () => {
    expect(r.unavailable.map((u) => u.kind)).toEqual(['duplicate-strings', 'sparse-arrays', 'empty-collections']);
    expect(of(r.findings, 'growth-type')).toEqual([]);
  });

  it('--top keeps the N largest per kind', () => {
    expect(of(runInspections(t.graph, a, { top: 1 }).findings, 'static-field').map((f) => f.details.field)).toEqual(['App.Blob']);
  });

  it('stops when cancelled', () => {
    const c = new CancellationSource();
    c.cancel();
    expect(() => runInspections(t.graph, a, { token: c })).toThrow(/cancel/i);
  });
});

describe('growth suspects against a baseline', () => {
  it('flags the Item type and the App.Items static that grew from 2 to 4 items, and nothing else', () => {
    const before = heap(2);
    const base = baselineOf(before.graph, analyzeDominance(before.graph), 'before');
    const t = heap(4);
    const fs = runInspections(t.graph, analyzeDominance(t.graph), { baseline: base }).findings.filter((f) => f.kind.startsWith('growth'));
    // Item retained: 2 × 30 + 10 = 70 before, 4 × 30 + 10 = 130 now; App.Items 32 + 40 + 70 = 142 → 202.
    // Item[] grew too (its retained per type includes the Items): 110 → 170; List<Item> 142 → 202.
    expect(fs.map((f) => [f.kind, f.details.type ?? f.details.field, f.bytes, f.details.baselineBytes, f.details.growthBytes])).toEqual([
      ['growth-type', 'Item', 130, 70, 60],
      ['growth-type', 'Item[]', 170, 110, 60],
      ['growth-type', 'List<Item>', 202, 142, 60],
      ['growth-static', 'App.Items', 202, 142, 60],
    ]);
    expect(fs[0].objects).toBe(4);
    expect(fs[0].details.objectGrowth).toBe(2);
  });
});

describe('type-name rules', () => {
  it('recognises delegates by name and strips reader annotations', () => {
    for (const n of ['System.EventHandler', 'System.EventHandler<System.EventArgs>', 'System.Action<A,B>', 'System.Func<X>', 'System.Threading.TimerCallback', 'System.ComponentModel.PropertyChangedEventHandler', 'Microsoft.Maui.Controls.BindableProperty.CoerceValueDelegate', 'System.MulticastDelegate', 'System.Action (Bytes > 1K)'])
      expect(isDelegateTypeName(n), n).toBe(true);
    for (const n of ['System.Object[]', 'Microsoft.Maui.Handlers.LabelHandler', 'System.Collections.Generic.List<System.Action>', 'System.Action[]', 'ActionItem'])
      expect(isDelegateTypeName(n), n).toBe(false);
    expect(baseTypeName('System.Object[] (Bytes > 10K,Ptrs,ElemSize=4)')).toBe('System.Object[]');
    expect(baseTypeName('System.Object[] (Ptrs,ElemSize=4)')).toBe('System.Object[]');
    expect(baseTypeName('Foo (Bar)')).toBe('Foo (Bar)');
  });
});

describe('event-handler leak exclusions', () => {
  it('leaves out closures (as holder or subscriber), arrays as holders and Mono DelegateData, but keeps a static event', () => {
    const t = tinyGraph((b) => {
      b.root('[static var App.Changed]').ref('E0');
      b.root('[local vars]').ref('Reg', 'Factory', 'ChainOuter');
      b.node('E0', 64, 'System.EventHandler').ref('S0', 'DD');
      b.node('S0', 40, 'View');
      b.node('DD', 40, 'System.DelegateData');
      b.node('Reg', 32, 'System.Action<X>[]').ref('E1');
      b.node('E1', 64, 'System.Action<X>').ref('S1');
      b.node('S1', 40, 'Mapper');
      b.node('Factory', 32, 'ServiceDescriptor').ref('E2');
      b.node('E2', 64, 'System.Func<X>').ref('C2');
      b.node('C2', 24, 'App.[]c__DisplayClass4_0');
      b.node('ChainOuter', 32, 'Outer').ref('E3');
      b.node('E3', 64, 'System.Action').ref('C3');
      b.node('C3', 24, 'Lib.<>c__DisplayClass1_0').ref('E4');
      b.node('E4', 64, 'System.Action').ref('S4');
      b.node('S4', 40, 'Inner');
    });
    const r = runInspections(t.graph, analyzeDominance(t.graph));
    expect(of(r.findings, 'event-handler-leak').map((f) => [f.details.subscriberType, f.details.staticField, f.objects, f.bytes])).toEqual([['View', 'App.Changed', 1, 40]]);
  });
});

describe('large objects with generation data', () => {
  it('groups objects ≥ 85,000 bytes or in the LOH by type, leaves out Free, and totals LOH and POH', () => {
    const t = tinyGraph((b) => {
      b.root('[local vars]').ref('Big', 'Small', 'Pinned', 'Free', 'Gen0', 'Str');
      b.node('Big', 90_000, 'System.Byte[]');
      b.node('Small', 1_000, 'System.Byte[]'); // in the LOH by generation, though below the threshold
      b.node('Pinned', 500, 'System.Byte[]');
      b.node('Free', 100, 'Free');
      b.node('Gen0', 60, 'Obj').ref('Str');
      b.node('Str', 100_000, 'System.String'); // large by size though the file says gen0
    });
    const generation = new Uint8Array(t.graph.nodeCount);
    generation[t.id('Big')] = 3;
    generation[t.id('Small')] = 3;
    generation[t.id('Free')] = 3;
    generation[t.id('Pinned')] = 4;
    const g = { ...t.graph, generation, hasGenerationData: true };
    const r = runInspections(g, analyzeDominance(g));
    expect(r.findings.filter((f) => f.kind === 'large-objects').map((f) => [f.details.type, f.objects, f.bytes, f.shallowBytes])).toEqual([
      ['System.String', 1, 100_000, 100_000],
      ['System.Byte[]', 2, 91_000, 91_000],
    ]);
    expect(r.largeHeapShare).toEqual({ heapBytes: 191_660, lohObjects: 3, lohBytes: 91_100, pohObjects: 1, pohBytes: 500 });
  });
});
