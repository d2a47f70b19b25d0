import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { preferLowMemoryAnalysis } from '../../shared/graph/memory-estimate.js';
import { memoryBudget } from '../files/memory-budget.js';
import { collectGarbage } from '../workers/collect-garbage.js';
import type { ParsedArgs } from './args.js';
import { applyIgnoreFlags } from './ignore-flags.js';
import { loadSnapshot, selectOf } from './load.js';
import type { Writer } from './output.js';

/**
 * The graph `heapscope report` analyses, and whether it runs the low-memory analysis
 * (preferLowMemoryAnalysis: the estimate takes more than half of the memory available, or
 * `HEAPSCOPE_MEMORY_LIMIT` says so).
 *
 * The dominators' scratch is the peak (about 25 bytes per node on top of the graph in low-memory
 * mode, 35 in the default mode), so before it is allocated this frees what the parse left behind,
 * in both modes:
 *   - the garbage of the read (the reader's scratch, the builder's per-node pool starts, the
 *     file's read buffers): dead once loadSnapshot returns, but V8 frees a dead ArrayBuffer only
 *     when it next collects, and measured at 100M objects some of it was still resident at the
 *     dominators' peak. One full GC here frees it first; its cost is a mark of the small JS heap
 *     (the graph is a few ArrayBuffers, the type table thousands of strings), once per run.
 *   - the address column (8 bytes per node, a quarter of the graph's node columns): nothing the
 *     report computes or prints reads an address (type rows, retained and set retained sizes,
 *     unreachable counts, PerfView's inclusive sizes), so the graph handed back has a
 *     zero-length `address`. Only this command's own pipeline may get such a graph: anything
 *     that shows objects (paths, inspections) needs the addresses.
 * Freed just before the dominators allocate, those pages are the first they get back, while the
 * kernel still has them: fewer fresh pages to fault in. That matters most on a virtual machine
 * that gives freed memory back to its host, where a fresh page costs several times more once a
 * process needs more than the memory recently freed (test/perf/page-fault-cost.bench.ts). The
 * cost is one GC of the small JS heap; the gain is in the README's performance table (100M row).
 *
 * The caller must hold no other reference to the file's graph: this function is the only frame
 * that sees it (loadSnapshot's result and the what-if graph die with it), so the GC can free
 * the address column.
 */
export async function loadReportGraph(path: string, stderr: Writer, args: ParsedArgs): Promise<{ graph: HeapGraph; name: string; note: string | null; lowMemory: boolean }> {
  const { name, graph: fileGraph } = await loadSnapshot(path, stderr, selectOf(args));
  const { graph, note } = applyIgnoreFlags(fileGraph, args);
  const lowMemory = preferLowMemoryAnalysis(graph.nodeCount, graph.edgeCount, memoryBudget().availableBytes);
  return { graph: withoutAddresses(graph), name, note, lowMemory };
}

/** Runs the full GC that frees the parse's garbage (see loadReportGraph); a no-op when V8 cannot be asked. */
export function releaseParseGarbage(): void {
  collectGarbage();
}

/** The graph with a zero-length address column (the other columns are the same arrays). */
export function withoutAddresses(g: HeapGraph): HeapGraph {
  return { ...g, address: NO_ADDRESSES };
}

const NO_ADDRESSES = new BigUint64Array(0);
