import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectHeapSnapshot } from '../../electron/diagnostics/heap-collector.js';
import { analyzeDominance } from '../../shared/analysis/analyze.js';
import { runInspections } from '../../shared/analysis/inspections/index.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../helpers/dotnet-app.js';

/**
 * Inspections on real CoreCLR heaps captured with Heapscope's own collector: LeakyApp's 1,000
 * LeakyPage subscribers of a static MessageBus event, and RetentionApp's 3 disposed Clocks whose
 * timers were never disposed. Each must be found exactly, with the retained bytes the dominator
 * tree gives those objects.
 */
function nodesOf(g: HeapGraph, type: string): number[] {
  const out: number[] = [];
  for (let n = 0; n < g.nodeCount; n++) if (g.types.names[g.nodeType[n]] === type) out.push(n);
  return out;
}

async function capture(app: RunningApp) {
  const { graph } = await collectHeapSnapshot({ pid: app.pid, timeoutSec: 60 });
  return { g: graph, a: analyzeDominance(graph) };
}

describe.skipIf(!HAS_DOTNET)(`inspections on live captures (${HAS_DOTNET ? 'dotnet found' : DOTNET_MISSING})`, () => {
  let leaky: RunningApp;
  let retention: RunningApp;
  beforeAll(async () => {
    leaky = await startDotnetApp(buildDotnetApp('LeakyApp'));
    retention = await startDotnetApp(buildDotnetApp('RetentionApp'));
  }, 300_000);
  afterAll(async () => {
    await leaky?.stop();
    await retention?.stop();
  });

  it('LeakyApp: the event-handler leak is exactly the 1,000 LeakyPage objects of the static MessageBus', async () => {
    const { g, a } = await capture(leaky);
    const leaks = runInspections(g, a).findings.filter((f) => f.kind === 'event-handler-leak');
    const pages = nodesOf(g, 'HeapscopeTest.LeakyPage');
    expect(pages).toHaveLength(1000);
    const pagesRetained = pages.reduce((s, n) => s + a.retainedSize[n], 0);
    const page = leaks.find((f) => f.details.subscriberType === 'HeapscopeTest.LeakyPage');
    expect(page).toBeDefined();
    expect([page!.objects, page!.bytes, page!.shallowBytes, page!.details.publisherType]).toEqual([1000, pagesRetained, 1000 * g.selfSize[pages[0]], 'HeapscopeTest.MessageBus']);
    // the figure is what the pages really hold: each page and its 1,024-byte payload
    expect(pagesRetained).toBeGreaterThan(1000 * (g.selfSize[pages[0]] + 1024));
    // no other subscriber in this small program
    expect(leaks.map((f) => f.details.subscriberType)).toEqual(['HeapscopeTest.LeakyPage']);
  }, 120_000);

  it('RetentionApp: the 3 disposed Clocks are timer-held, and not reported as event leaks', async () => {
    const { g, a } = await capture(retention);
    const r = runInspections(g, a);
    const clocks = nodesOf(g, 'HeapscopeRetention.Clock');
    expect(clocks).toHaveLength(3);
    const timer = r.findings.filter((f) => f.kind === 'timer-held');
    expect(timer.map((f) => [f.details.type, f.objects, f.bytes])).toEqual([['HeapscopeRetention.Clock', 3, clocks.reduce((s, n) => s + a.retainedSize[n], 0)]]);
    expect(r.findings.some((f) => f.kind === 'event-handler-leak' && f.details.subscriberType === 'HeapscopeRetention.Clock')).toBe(false);
  }, 120_000);
});
