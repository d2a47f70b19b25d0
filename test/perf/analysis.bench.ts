import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { buildDominatorTree, buildOrderTree } from '../../shared/analysis/dominator-tree.js';
import { computeDominators } from '../../shared/analysis/dominators.js';
import { computeRetainedSizes } from '../../shared/analysis/retained-sizes.js';
import { buildRetainers } from '../../shared/analysis/retainers.js';
import { computeTypeRetained } from '../../shared/analysis/type-retained.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { syntheticHeap } from '../helpers/random-graph.js';
import { makeSyntheticHeap } from '../tools/synthetic-heap.js';

/**
 * Times each analysis phase on `g` (ms) and reports the memory of the graph and of the derived
 * arrays that analyzeGraph keeps, per object. The phases are called one by one (the same calls
 * analyzeGraph makes) so each gets its own clock.
 *
 * Wall-clock and CPU time per phase, one cold run (JIT warm-up included, as a user's first load
 * has it).
 * Targets (ARCHITECTURE §9.4, issue 3): 10M objects / 25M references → dominators + retained +
 * type retained ≤ 5 s (`coreMs`); graph + derived ≤ 80 bytes per object
 * (`totalBytesPerObject`).
 */
export async function benchAnalysis(g: HeapGraph): Promise<Record<string, number>> {
  const clock = (): number => performance.now();
  const cpu = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const cpu0 = cpu();
  // [wall, CPU] per phase
  const lap = { t: clock(), c: cpu() };
  const take = (): [number, number] => {
    const t = clock();
    const c = cpu();
    const r: [number, number] = [t - lap.t, c - lap.c];
    lap.t = t;
    lap.c = c;
    return r;
  };
  const retainers = buildRetainers(g);
  const [retainersMs, retainersCpu] = take();
  const dom = computeDominators(g);
  const [dominatorsMs, dominatorsCpu] = take();
  const retained = computeRetainedSizes(g.selfSize, dom);
  const [retainedMs, retainedCpu] = take();
  const orderTree = buildOrderTree(dom);
  const tree = buildDominatorTree(dom, orderTree, retained.orderRetained, g.selfSize, g.rootIndex);
  const [treeMs, treeCpu] = take();
  const types = computeTypeRetained(g, dom, orderTree, retained.orderRetained);
  const [typesMs, typesCpu] = take();
  const cpuMs = cpu() - cpu0;

  const n = g.nodeCount;
  const graphBytes =
    g.nodeType.byteLength + g.selfSize.byteLength + g.firstEdge.byteLength + g.edgeTarget.byteLength + g.address.byteLength + g.nodeFlags.byteLength + g.generation.byteLength;
  const derivedBytes =
    retainers.firstRetainer.byteLength +
    retainers.retainerNode.byteLength +
    dom.idom.byteLength +
    dom.reachable.byteLength +
    retained.retainedSize.byteLength +
    tree.treePosition.byteLength +
    tree.treeChildStart.byteLength +
    tree.domChildren.byteLength +
    types.typeRetained.byteLength +
    types.typeReachableCount.byteLength +
    types.typeReachableShallow.byteLength +
    types.typeUnreachableCount.byteLength +
    types.typeUnreachableShallow.byteLength;
  const round = (x: number): number => Math.round(x * 10) / 10;
  return {
    nodes: n,
    edges: g.edgeCount,
    reachable: dom.order.length,
    retainersMs: round(retainersMs),
    dominatorsMs: round(dominatorsMs),
    retainedMs: round(retainedMs),
    treeMs: round(treeMs),
    typesMs: round(typesMs),
    // the target: dominators + retained + type retained (retainers only feed the UI)
    coreMs: round(dominatorsMs + retainedMs + typesMs),
    // the same phases in CPU time: wall time on a shared machine includes waiting for a core
    dominatorsCpuMs: round(dominatorsCpu),
    coreCpuMs: round(dominatorsCpu + retainedCpu + typesCpu),
    retainersCpuMs: round(retainersCpu),
    treeCpuMs: round(treeCpu),
    totalMs: round(retainersMs + dominatorsMs + retainedMs + treeMs + typesMs),
    // CPU time of all phases: on a shared machine wall time includes waiting for a core
    totalCpuMs: round(cpuMs),
    graphBytesPerObject: round(graphBytes / n),
    derivedBytesPerObject: round(derivedBytes / n),
    totalBytesPerObject: round((graphBytes + derivedBytes) / n),
    // transient, dropped when computeDominators returns: DFS records / forest (8) and semi (4)
    // per node, plus 12 bytes per later predecessor while they are grouped (not counted here)
    dominatorScratchBytesPerObject: round((12 * (n + 1)) / n),
  };
}

// `npx tsx test/perf/analysis.bench.ts [nodes] [refsPerObject] [synthetic|random]`: one run, printed
// as JSON. `synthetic` (default) is the .NET-like heap of test/tools/synthetic-heap.ts that
// `npm run bench` writes as a .gcdump (the target heap); `random` is random-graph.ts's
// syntheticHeap, 40% of whose references go to uniformly random objects: a much less local,
// worst-case-like graph on which every phase is slower (dominators about 1.7× at 10M).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const nodes = Number(process.argv[2] ?? 1_000_000);
  const degree = Number(process.argv[3] ?? 2.5);
  const kind = process.argv[4] ?? 'synthetic';
  if (kind !== 'synthetic' && kind !== 'random') throw new Error(`heap kind must be synthetic or random (got ${kind})`);
  const t0 = performance.now();
  const g = kind === 'random' ? syntheticHeap(nodes, degree, 1) : makeSyntheticHeap({ objects: nodes, seed: 1, refsPerObject: degree });
  const buildMs = Math.round(performance.now() - t0);
  const result = await benchAnalysis(g);
  console.log(JSON.stringify({ heap: kind, buildMs, ...result, rssMB: Math.round(process.memoryUsage().rss / 2 ** 20) }, null, 2));
}
