import { LOH_THRESHOLD, NODE_PSEUDO, NODE_UNDEFINED } from '../../graph/heap-graph.js';
import { FlaggedGroups, grouped, type Finding, type InspectionContext } from './finding.js';

/** Which generation the LOH and POH are in HeapGraph.generation. */
const GEN_LOH = 3;
const GEN_POH = 4;

/** Large-object-heap and pinned-object-heap totals, when the file has generation data. */
export interface LargeHeapShare {
  heapBytes: number;
  lohObjects: number;
  lohBytes: number;
  pohObjects: number;
  pohBytes: number;
}

/**
 * Large objects: arrays and strings the runtime puts on the large object heap.
 *
 * Rule: a heap object of at least LOH_THRESHOLD (85,000) bytes, or, when the file has generation
 * data, any object in the LOH generation. Grouped by type name as the file gives it ("System.Byte[]
 * (Bytes > 100K)" counts as its own type name, as the file gives it); free-space entries (type "Free")
 * are left out. Bytes = exact retained.
 */
export function inspectLargeObjects(ctx: InspectionContext): { findings: Finding[]; share: LargeHeapShare | null } {
  const { g, token } = ctx;
  const names = g.types.names;
  const { selfSize, generation, nodeFlags, nodeType, nodeCount } = g;
  const groups = new FlaggedGroups<number>(ctx);
  // free space between objects (ClrMD heap dumps list it as objects of type "Free") is no object
  const freeType = names.indexOf('Free');
  const share: LargeHeapShare = { heapBytes: 0, lohObjects: 0, lohBytes: 0, pohObjects: 0, pohBytes: 0 };
  for (let n = 0; n < nodeCount; n++) {
    if ((n & 0xffff) === 0) token.throwIfCancelled();
    if (nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
    share.heapBytes += selfSize[n];
    const gen = generation[n];
    if (gen === GEN_LOH) {
      share.lohObjects++;
      share.lohBytes += selfSize[n];
    } else if (gen === GEN_POH) {
      share.pohObjects++;
      share.pohBytes += selfSize[n];
    }
    if (nodeType[n] === freeType) continue;
    if (selfSize[n] >= LOH_THRESHOLD || (g.hasGenerationData && gen === GEN_LOH)) groups.add(n, String(nodeType[n]), nodeType[n]);
  }
  const bytes = groups.finish();
  const findings = groups.keys.map((type, gi) => ({
    kind: 'large-objects' as const,
    title: `${grouped(groups.count[gi])} large ${names[type]} (${grouped(groups.shallow[gi])} bytes)`,
    explanation: `Objects of ${LOH_THRESHOLD} bytes or more go to the large object heap, which is collected only with gen2 and not compacted by default, so churn there fragments memory and costs full GCs.`,
    fix: 'Reuse big buffers (ArrayPool<T>.Shared), stream instead of buffering whole payloads, or split them below 85,000 bytes.',
    objects: groups.count[gi],
    bytes: bytes[gi],
    shallowBytes: groups.shallow[gi],
    examples: groups.exampleRows(gi),
    details: { type: names[type], threshold: LOH_THRESHOLD },
  }));
  return { findings, share: g.hasGenerationData ? share : null };
}
