import { NODE_PSEUDO, NODE_UNDEFINED } from '../../graph/heap-graph.js';
import { FlaggedGroups, grouped, type Finding, type InspectionContext } from './finding.js';

/** Root categories of the finalizer queue ("[finalizer Handles]" in dotnet-gcdump, "[finalization …]"). */
const FINALIZER_ROOT = /^\[finali[sz]/i;

/**
 * The runtime's own helper that re-registers itself for finalization on purpose (to get a callback
 * after every gen2 GC): always on the queue, never a leak.
 */
const GEN2_GC_CALLBACK = 'System.Gen2GcCallback';

/**
 * Finalization: objects rooted only by the finalizer queue.
 *
 * Rule: a heap object whose immediate dominator is a finalizer root category (a pseudo-node
 * named "[finalizer …" / "[finalization …"): every path from a root to it starts at the
 * finalizer queue, so it is garbage waiting for its finalizer (and keeps what it references).
 * System.Gen2GcCallback is left out (see above). Grouped by type; bytes = exact retained size (these objects are siblings in the dominator
 * tree, never nested).
 */
export function inspectFinalization(ctx: InspectionContext): Finding[] {
  const { g, a, token } = ctx;
  const names = g.types.names;
  const { nodeFlags, nodeType, nodeCount } = g;
  const isQueue = new Uint8Array(nodeCount);
  let any = false;
  // the categories sit within two levels of the root ("[other roots]/[finalizer Handles]")
  for (let e = g.firstEdge[g.rootIndex]; e < g.firstEdge[g.rootIndex + 1]; e++) {
    const c = g.edgeTarget[e];
    if (!(nodeFlags[c] & NODE_PSEUDO)) continue;
    if (FINALIZER_ROOT.test(names[nodeType[c]])) {
      isQueue[c] = 1;
      any = true;
    }
    for (let f = g.firstEdge[c]; f < g.firstEdge[c + 1]; f++) {
      const d = g.edgeTarget[f];
      if (nodeFlags[d] & NODE_PSEUDO && FINALIZER_ROOT.test(names[nodeType[d]])) {
        isQueue[d] = 1;
        any = true;
      }
    }
  }
  if (!any) return [];
  const groups = new FlaggedGroups<number>(ctx);
  const { idom } = a;
  for (let n = 0; n < nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    const d = idom[n];
    if (d === 0xffffffff || isQueue[d] === 0 || nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
    if (names[nodeType[n]] === GEN2_GC_CALLBACK) continue;
    groups.add(n, String(nodeType[n]), nodeType[n]);
  }
  const bytes = groups.finish();
  return groups.keys.map((type, gi) => ({
    kind: 'finalization',
    title: `${grouped(groups.count[gi])} × ${names[type]} waiting for finalization`,
    explanation: `These ${names[type]} objects are reachable only from the finalizer queue: they are already garbage, kept (with everything they reference) until the finalizer thread runs their finalizers.`,
    fix: 'Dispose them deterministically and call GC.SuppressFinalize in Dispose; check that the finalizer thread is not blocked.',
    objects: groups.count[gi],
    bytes: bytes[gi],
    shallowBytes: groups.shallow[gi],
    examples: groups.exampleRows(gi),
    details: { type: names[type] },
  }));
}
