import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { FileByteSource } from '../../electron/files/file-byte-source.js';
import { readGcdump } from '../../shared/formats/gcdump/gcdump-reader.js';
import { buildDominatorTree, buildOrderTree } from '../../shared/analysis/dominator-tree.js';
import { groupLaterPredecessors, numberByDfs, numberByDfsInline } from '../../shared/analysis/dominators-dfs.js';
import { nearestCommonAncestors } from '../../shared/analysis/dominators-nca.js';
import { semidominatorsForNca } from '../../shared/analysis/dominators-semi.js';
import type { Dominators } from '../../shared/analysis/dominators.js';
import { computeRetainedSizes } from '../../shared/analysis/retained-sizes.js';
import { buildRetainers } from '../../shared/analysis/retainers.js';
import { computeTypeRetained } from '../../shared/analysis/type-retained.js';
import { NONE, type HeapGraph } from '../../shared/graph/heap-graph.js';
import { NEVER_CANCELLED } from '../../shared/util/cancellation.js';
import { NO_PROGRESS } from '../../shared/util/progress.js';
import { makeSyntheticHeap } from '../tools/synthetic-heap.js';

/**
 * Where the analysis stops being linear (issue 17): CPU nanoseconds per node of every phase, the
 * dominators split into their steps (record fill + DFS, grouping of later predecessors,
 * semidominators, NCA, mapping back to node ordinals), next to two properties of the input and
 * the machine that explain the growth:
 *
 * - the graph's shape: the share of references whose target is more than 64Ki ordinals away from
 *   its source ("far": a likely cache and TLB miss whatever the numbering);
 * - the memory: a dependent random walk (`chaseNs`, one load waits for the previous, as the DFS
 *   and the path compression do) and independent random loads (`gatherNs`, as the prefetched
 *   passes do) over an 8-byte-per-node array of the same size as the DFS records.
 *
 *   npx tsx test/perf/analysis-scaling.bench.ts N [RUNS]   (one size per process: a clean heap)
 *   npx tsx test/perf/analysis-scaling.bench.ts --file F.gcdump [RUNS]
 *   … --walks   (also count the semidominator pass's EVAL walks: 12 more bytes per node)
 *
 * `--file` reads a .gcdump instead (the 50M and 100M heaps of `npm run gen`, which take longer to
 * generate than to read) and prints the parse's CPU ns per node first; at 50M+ objects the bench
 * holds ~90 bytes per node, so run one at a time on a shared machine.
 *
 * One cold run per size by default; with RUNS the runs repeat on the same heap and a line of
 * medians follows (`node --expose-gc --import tsx …` runs a GC between them). The machine this
 * runs on is shared: CPU time, not wall time, is the figure to compare. The steps are the calls
 * computeDominators makes, in its order, on the `auto` layout and the SEMI-NCA path.
 */
export function benchScaling(g: HeapGraph, walks = false): Record<string, number> {
  const cpu = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const n = g.nodeCount;
  const out: Record<string, number> = { nodes: n, edges: g.edgeCount };
  let c = cpu();
  const lap = (name: string) => {
    const now = cpu();
    out[`${name}NsPerNode`] = Math.round(((now - c) * 1e6) / n);
    c = now;
  };
  const token = NEVER_CANCELLED;
  const inline = g.edgeCount <= 2 * n;
  const vertex = new Uint32Array(n + 1);
  const parent = new Uint32Array(n + 1);
  const semi = new Uint32Array(n + 1);
  const forest = new Uint32Array((inline ? 4 : 2) * (n + 1));
  lap('alloc');
  const dfs = (inline ? numberByDfsInline : numberByDfs)(g, forest, vertex, parent, semi, token, NO_PROGRESS, 2 * n);
  lap('dfs');
  const count = dfs.count;
  for (let w = 1; w <= count; w++) forest[2 * w] = parent[w];
  const pred = groupLaterPredecessors(dfs, forest, 2, token);
  lap('group');
  // --walks: the forest and semi the pass starts from, for evalWalks after the timed steps
  const before = walks ? { forest: forest.slice(0, 2 * (count + 1)), semi: semi.slice(0, count + 1) } : null;
  c = cpu();
  semidominatorsForNca(pred, forest, semi, count, token, NO_PROGRESS, n, 2 * n);
  lap('semi');
  nearestCommonAncestors(parent, semi, forest, count, token);
  lap('nca');
  const idom = new Uint32Array(n).fill(NONE);
  const reachable = new Uint8Array(n);
  reachable[vertex[1]] = 1;
  for (let i = 2; i <= count; i++) {
    idom[vertex[i]] = vertex[parent[i]];
    reachable[vertex[i]] = 1;
  }
  for (let i = 2; i <= count; i++) parent[i]--;
  parent[1] = NONE;
  const dom: Dominators = { idom, reachable, order: vertex.subarray(1, count + 1), orderIdom: parent.subarray(1, count + 1), algorithm: 'semi-nca' };
  lap('mapBack');
  const retained = computeRetainedSizes(g.selfSize, dom);
  lap('retained');
  const orderTree = buildOrderTree(dom);
  lap('orderTree');
  buildDominatorTree(dom, orderTree, retained.orderRetained, g.selfSize, g.rootIndex);
  lap('tree');
  computeTypeRetained(g, dom, orderTree, retained.orderRetained);
  lap('types');
  buildRetainers(g);
  lap('retainers');
  if (before) Object.assign(out, evalWalks(pred, before.forest, before.semi, count));
  out.laterPredecessorsPerNode = Math.round((100 * dfs.pairCount) / n) / 100;
  out.farReferenceShare = farShare(g);
  Object.assign(out, memoryLatency(n));
  return out;
}

/**
 * Forest records loaded per EVAL in the semidominator pass (the first check included) and the
 * share of calls that stop at that check: a copy of semidominatorsForNca's loop (dominators-semi.ts)
 * without its look-ahead, counting. Simple linking makes the walks O(log N) amortized, so this
 * says how much of that pass's growth with the heap is more work rather than dearer memory.
 */
function evalWalks(pred: Uint32Array, forest: Uint32Array, semi: Uint32Array, count: number): { evalRecordsPerCall: number; evalImmediateShare: number } {
  let calls = 0;
  let loads = 0;
  let immediate = 0;
  let runEnd = pred.length;
  for (let w = count; w >= 2; w--) {
    let s = semi[w];
    const runStart = forest[2 * w + 1];
    for (let r = runStart; r < runEnd; r++) {
      const v = pred[r];
      calls++;
      loads++;
      if (forest[2 * v] <= w) immediate++;
      else {
        // the walk up with pointer reversal, then down to point every record at the forest root
        let below = 0;
        let x = v;
        for (;;) {
          const up = forest[2 * x];
          if (up <= w) break;
          loads++;
          forest[2 * x] = below;
          below = x;
          x = up;
        }
        const root = forest[2 * x];
        let above = x;
        for (let cur = below; cur !== 0; ) {
          const down = forest[2 * cur];
          if (forest[2 * above + 1] < forest[2 * cur + 1]) forest[2 * cur + 1] = forest[2 * above + 1];
          forest[2 * cur] = root;
          above = cur;
          cur = down;
        }
      }
      if (forest[2 * v + 1] < s) s = forest[2 * v + 1];
    }
    runEnd = runStart;
    forest[2 * w + 1] = s;
  }
  return { evalRecordsPerCall: Math.round((1000 * loads) / Math.max(1, calls)) / 1000, evalImmediateShare: Math.round((1000 * immediate) / Math.max(1, calls)) / 1000 };
}

/** Share (‰) of references whose target is more than 64Ki ordinals from its source. */
function farShare(g: HeapGraph): number {
  const { firstEdge, edgeTarget, nodeCount } = g;
  let far = 0;
  for (let v = 0; v < nodeCount; v++) {
    for (let k = firstEdge[v]; k < firstEdge[v + 1]; k++) if (Math.abs(edgeTarget[k] - v) > 65_536) far++;
  }
  return Math.round((1000 * far) / Math.max(1, g.edgeCount));
}

/** ns per dependent random load, and per independent random load, over 8 bytes × n. */
function memoryLatency(n: number): { chaseNs: number; gatherNs: number } {
  // one cycle through all n slots (Sattolo), in the even words of 2-word records like the DFS's
  const rec = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) rec[2 * i] = i;
  let s = 0x9e3779b9;
  const rand = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * i);
    const t = rec[2 * i];
    rec[2 * i] = rec[2 * j];
    rec[2 * j] = t;
  }
  const steps = Math.min(n, 20_000_000);
  // CPU time, not wall: the machine is shared
  const cpuMs = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let t0 = cpuMs();
  let x = 0;
  for (let i = 0; i < steps; i++) x = rec[2 * x];
  const chaseNs = ((cpuMs() - t0) * 1e6) / steps;
  t0 = cpuMs();
  let sum = x;
  for (let i = 0; i < steps; i++) sum ^= rec[2 * ((Math.imul(i, 0x9e3779b1) >>> 0) % n) + 1];
  const gatherNs = ((cpuMs() - t0) * 1e6) / steps;
  rec[1] = sum; // keep the loads
  return { chaseNs: Math.round(chaseNs * 10) / 10, gatherNs: Math.round(gatherNs * 10) / 10 };
}

/**
 * `runs` runs on one heap (fresh arrays each, a GC between them when --expose-gc): each run's
 * line, then one line of the medians (`"median": true`), so a figure is not one cold run's luck.
 */
export function benchScalingRuns(g: HeapGraph, runs: number, walks = false): Record<string, number>[] {
  const out: Record<string, number>[] = [];
  for (let r = 0; r < runs; r++) {
    (globalThis as { gc?: () => void }).gc?.();
    out.push(benchScaling(g, walks));
  }
  const median: Record<string, number> = { median: 1 };
  for (const key of Object.keys(out[0])) {
    const sorted = out.map((x) => x[key]).sort((a, b) => a - b);
    median[key] = sorted[Math.floor(sorted.length / 2)];
  }
  return [...out, median];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2).filter((a) => a !== '--walks');
  const walks = argv.length < process.argv.length - 2;
  const fromFile = argv[0] === '--file';
  const runs = Math.max(1, Number(argv[fromFile ? 2 : 1] ?? 1));
  const g = fromFile ? await readFile(argv[1]) : makeSyntheticHeap({ objects: Number(argv[0] ?? 1_000_000), seed: 1 });
  for (const line of benchScalingRuns(g, runs, walks)) console.log(JSON.stringify({ ...line, load1: Math.round(loadavg()[0] * 10) / 10 }));
}

/** Reads a .gcdump and prints the parse's CPU ns per node (one cold read). */
async function readFile(path: string): Promise<HeapGraph> {
  const before = process.cpuUsage();
  const source = await FileByteSource.open(path);
  try {
    const g = await readGcdump(source, {});
    const u = process.cpuUsage(before);
    console.log(JSON.stringify({ file: path, nodes: g.nodeCount, edges: g.edgeCount, parseNsPerNode: Math.round(((u.user + u.system) * 1000) / g.nodeCount) }));
    return g;
  } finally {
    await source.close();
  }
}
