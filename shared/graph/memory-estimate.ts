import { AppError } from '../errors.js';

/**
 * How much memory opening a snapshot takes, estimated before anything proportional to it is
 * allocated, and the `memory/too-large` refusal when that is more than the host has.
 *
 * The constants are measured, not derived from the column list: the peak RSS of the bundled
 * `heapscope report FILE --sort retained` (parse, retainers, dominator tree, retained sizes, per
 * type retained) minus the RSS of the same process on the 1 MB sample, on two synthetic heaps of
 * 10M objects with different reference counts (`npm run gen -- --objects 10000000`: 10,002,220
 * nodes and 25,005,712 references, peak 783 MB; a chain-heap with 10,000,012 nodes and
 * 10,000,011 references, peak 724 MB). Solving the two gives ~61 bytes per node and ~4 per
 * reference; both are rounded up (64 and 6) because RSS peaks vary by a few percent with GC
 * timing. Most of the memory is typed arrays (ArrayBuffers outside the V8 heap), so the limit
 * that applies is the machine's available memory, not V8's heap limit (see
 * electron/files/memory-budget.ts). Re-measure when the graph or the analyses gain columns.
 * Since `heapscope report`'s analysis rescans for the dominators' later predecessors and reuses
 * their dead scratch (lean-retention.ts), the first heap peaks at ~63 bytes per node in all
 * (620–630 MB over the idle process, not 707; ~560 MB since `report` also drops the address
 * column and collects the parse's garbage first, in both modes: electron/cli/report-graph.ts): the constants
 * are kept as a safe upper bound until the chain-heap shape, whose sparse DFS records take 16
 * bytes per node, is re-measured.
 */
export const BYTES_PER_NODE = 64;
export const BYTES_PER_EDGE = 6;

/**
 * The app's peak (snapshot worker plus the two analysis children, test/perf/app-memory.bench.ts)
 * is higher than the CLI's, because the app keeps and computes more at once: the retainer index
 * (4 bytes per node + 4 per reference) is built beside the dominators, the dominance child
 * allocates its scratch ahead while the parse still holds the reader's (to save page faults),
 * and the session keeps the sorted dominator tree, per-node retained sizes and the shared core
 * (positions, position tree, per-position sizes) for its views. Measured on the 10M-object
 * benchmark heap above: 128 bytes per node above the idle process (1.28 GB), against 71–74 for
 * the CLI. One heap shape only, so the split is not solved but reasoned: the CLI's 6 per
 * reference plus the retainer index's 4, and per node what makes the benchmark heap's 2.5
 * references per node come to the measured peak, rounded up (105 + 2.5 × 10 = 130). This is the
 * fast plan's peak; the low-memory plan (preferLowMemoryApp below) peaks at about the CLI's
 * (64.5–65 bytes per node on that heap, 59.6 at 100M objects: README's performance table); the
 * refusal uses that plan's estimate (below).
 */
export const APP_BYTES_PER_NODE = 105;
export const APP_BYTES_PER_EDGE = 10;

/**
 * The app's low-memory plan's peak, the least any tab needs, and so what the app's refusal uses:
 * when the fast plan does not fit, preferLowMemoryApp picks this plan, so a file is refused only
 * when even this one does not fit. It includes the retainer index the plan builds on the first
 * query that reads it (4 bytes per node + 4 per reference), because a tab that opens and then
 * fails on the first click has lost the user's work. Measured with test/perf/app-memory.bench.ts
 * on the synthetic heaps (2.5 references per node): after the first index build, 91 bytes per node
 * above the idle process at 10M objects (where the analysis child's own runtime still shows) and
 * 73.8 at 100M; 72 + 2.5 × 8 = 92 covers both, rounded up like the CLI's.
 */
export const APP_LOW_BYTES_PER_NODE = 72;
export const APP_LOW_BYTES_PER_EDGE = 8;

/**
 * Whose peak an estimate is for: `heapscope` commands, a tab of the app (browser mode, Electron)
 * on its fast plan, or on its low-memory plan ('app-low', what the app's refusal checks).
 */
export type MemoryPath = 'cli' | 'app' | 'app-low';

/** What the host says it can give; `source` names where the number came from, for the message. */
export interface MemoryBudget {
  availableBytes: number;
  source: string;
  /** Whose peak to estimate (default 'cli'). */
  path?: MemoryPath;
}

/** Bytes opening and analysing a graph of this size needs at its peak (see above). */
export function estimateSnapshotBytes(nodes: number, edges: number, path: MemoryPath = 'cli'): number {
  if (path === 'app') return nodes * APP_BYTES_PER_NODE + edges * APP_BYTES_PER_EDGE;
  if (path === 'app-low') return nodes * APP_LOW_BYTES_PER_NODE + edges * APP_LOW_BYTES_PER_EDGE;
  return nodes * BYTES_PER_NODE + edges * BYTES_PER_EDGE;
}

/** The estimate a refusal checks: for the app, the low-memory plan's (the least a tab can do with). */
function refusalEstimate(nodes: number, edges: number, path: MemoryPath | undefined): number {
  return estimateSnapshotBytes(nodes, edges, path === 'app' ? 'app-low' : path);
}

/**
 * Whether `heapscope report` should run its analysis in low-memory mode (analyze.ts `lowMemory`:
 * the dominators rescan the references for their later predecessors instead of storing them,
 * about 12 bytes per node less at the peak for about 20–30% more analysis CPU). Chosen only when
 * memory is tight: when the estimate, which is the faster mode's peak rounded up, takes more than
 * half of the memory available. With room to spare, the faster mode is the better trade.
 */
export function preferLowMemoryAnalysis(nodes: number, edges: number, availableBytes: number): boolean {
  return 2 * estimateSnapshotBytes(nodes, edges, 'cli') > availableBytes;
}

/**
 * Whether a tab of the app runs its analysis in low-memory mode (analysis-runner.ts `lowMemory`:
 * the dominance child runs the CLI's lean pipeline with the rescan, every array in the
 * dominators' dead scratch, nothing prepared during the parse, nothing beside it; the retainer
 * index is built on the first query that needs it). The CLI's rule with the app's estimate:
 * chosen when the fast plan's peak (the app estimate above) takes more than half of the memory
 * available. On a 24 GB machine that is from about 80M objects on the synthetic heaps; at 10M
 * (1.3 GB estimated) the fast plan, which runs the retainer index beside the dominators and is
 * the faster load, stays. `HEAPSCOPE_MEMORY_LIMIT` selects it for smaller heaps (the bench).
 */
export function preferLowMemoryApp(nodes: number, edges: number, availableBytes: number): boolean {
  return 2 * estimateSnapshotBytes(nodes, edges, 'app') > availableBytes;
}

/**
 * Throws `memory/too-large` when the estimate (for the app, its low-memory plan's) exceeds the
 * budget; no budget is no check (tests and hosts that cannot tell). `name` is the file, for the
 * message. The detail carries the numbers for scripts and the app: estimateBytes,
 * availableBytes, nodes, edges, limit.
 */
export function checkMemoryBudget(name: string, nodes: number, edges: number, budget: (() => MemoryBudget) | undefined): void {
  if (!budget) return;
  const b = budget();
  const estimate = refusalEstimate(nodes, edges, b.path);
  if (estimate <= b.availableBytes) return;
  throw new AppError(
    'memory/too-large',
    `${name} needs about ${gib(estimate)} of memory to open (${count(nodes)} nodes, about ${count(edges)} references), but only ${gib(b.availableBytes)} is available (${b.source})`,
    { estimateBytes: estimate, availableBytes: b.availableBytes, nodes, edges, limit: b.source },
  );
}

/** Binary units, as everywhere in Heapscope (1 KB = 1,024 bytes). */
function gib(bytes: number): string {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(1)} GB`;
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MB`;
  if (bytes >= 2 ** 10) return `${(bytes / 2 ** 10).toFixed(1)} KB`;
  return bytes === 1 ? '1 byte' : `${bytes} bytes`;
}

function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/**
 * The check for a reader that learns the graph's size only while it reads it (a .nettrace heap
 * walk: objects and references arrive in BulkNode/BulkEdge events, the total is nowhere in the
 * stream). Same estimate and error as checkMemoryBudget, in two steps:
 *
 * 1. `bound(nodes, edges)` when the walk starts, with the most the stream can hold (its size over
 *    the smallest entry of each kind): only an upper bound (other events share the file), so it
 *    cannot refuse, but when even that fits, no later check can fail and they are skipped.
 * 2. `atLeast(nodes, edges)` before each batch is stored, with the counts so far including the
 *    batch: they only grow, so a refusal is never wrong, and it comes before the batch's memory
 *    is taken, so the reader never holds more than the budget allows. One multiply and compare per
 *    event (thousands of objects), nothing per object.
 *
 * The budget is asked once (at `bound`, or the first `atLeast`) and kept: the reader's own columns
 * take from the memory available later, and they are part of the estimate already.
 *
 * The per-node and per-reference bytes are the .gcdump's: a heap walk's rows and references
 * become the graph's own columns (shared/formats/nettrace/heap-dump-collection.ts), so its peak is
 * the analyses', as for a .gcdump. Measured once: the bundled `heapscope report --sort retained`
 * on the nettrace bench's 10M-object trace (10,000,000 nodes, 25,002,136 references, 621 MB,
 * every reference to a random object) peaked at 793 MB RSS (binary units), ~717 MB over the
 * CLI's own 76 MB, under the 753 MB estimate. Not measured: a walk out of address order (the rows are then copied once
 * into address order; runtimes walk segments in address order).
 */
export class GrowingMemoryCheck {
  private budget: MemoryBudget | null = null;
  private needed = true;

  constructor(
    private readonly name: string,
    private readonly memoryBudget: (() => MemoryBudget) | undefined,
  ) {
    if (!memoryBudget) this.needed = false;
  }

  /** Step 1: the most the stream can hold; when that fits, the checks stop. */
  bound(maxNodes: number, maxEdges: number): void {
    const b = this.take();
    if (b && refusalEstimate(maxNodes, maxEdges, b.path) <= b.availableBytes) this.needed = false;
  }

  /** Step 2: nodes and references read so far (the final graph has at least these). */
  atLeast(nodes: number, edges: number): void {
    if (!this.needed) return;
    const b = this.take()!;
    const estimate = refusalEstimate(nodes, edges, b.path);
    if (estimate <= b.availableBytes) return;
    throw new AppError(
      'memory/too-large',
      `${this.name} needs at least ${gib(estimate)} of memory to open (at least ${count(nodes)} nodes and ${count(edges)} references, read so far), but only ${gib(b.availableBytes)} is available (${b.source})`,
      { estimateBytes: estimate, availableBytes: b.availableBytes, nodes, edges, complete: false, limit: b.source },
    );
  }

  private take(): MemoryBudget | null {
    if (!this.memoryBudget) return null;
    this.budget ??= this.memoryBudget();
    return this.budget;
  }
}
