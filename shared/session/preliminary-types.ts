import type { TypeStats } from '../analysis/type-stats.js';
import type { TypeHistogram } from '../formats/dump/type-histogram.js';
import { emptyMetadata } from '../graph/metadata.js';
import type { FileEntry, RowWindow, SessionId, SnapshotSummary, TypeRow, TypeRowsReq } from '../ipc/contract.js';
import { metadataDto } from './summary-view.js';
import { TypeView } from './type-view.js';

/**
 * The types grid of a process dump before its graph exists: the dump helper's type histogram
 * (formats/dump/type-histogram.ts) as TypeStats, served by the same TypeView the session uses,
 * with no analysis (retained sizes null, as in the session's own rows before its analysis). The
 * helper's stats pass and walk step through the same objects, and a graph's type index is the
 * stream's type id, so each row equals the final one (name, module, count, shallow size); the
 * order of a sort equals it too (TypeView breaks ties by name, then type index).
 *
 * Cost: the TypeView's orders, a few arrays per type; dropped once the session is parsed.
 */
export class PreliminaryTypes {
  private readonly stats: TypeStats;
  private readonly view: TypeView;

  constructor(
    h: TypeHistogram,
    private readonly info: { sessionId: SessionId; file: FileEntry; parseMs: number },
  ) {
    let objectCount = 0;
    let objectSize = 0;
    for (let t = 0; t < h.count.length; t++) {
      objectCount += h.count[t];
      objectSize += h.bytes[t];
    }
    this.stats = {
      count: h.count,
      shallowSize: h.bytes,
      sampled: false,
      scaledCount: null,
      scaledShallowSize: null,
      objectCount,
      objectSize,
      scaledObjectCount: objectCount,
      scaledObjectSize: objectSize,
      pseudoNodeCount: 0,
      undefinedNodeCount: 0,
    };
    this.view = new TypeView({ types: { names: h.typeNames, modules: h.typeModules } }, this.stats);
  }

  typeRows(req: Omit<TypeRowsReq, 'sessionId'>): RowWindow<TypeRow> {
    return this.view.window(req, null);
  }

  /** A summary marked preliminary: the type table's figures; the graph's are 0 until the session is ready. */
  summary(): SnapshotSummary {
    const s = this.stats;
    return {
      sessionId: this.info.sessionId,
      file: this.info.file,
      metadata: metadataDto(emptyMetadata('dump')),
      nodeCount: 0,
      edgeCount: 0,
      typeCount: this.view.rowCount,
      objects: { count: s.objectCount, size: s.objectSize },
      estimated: { count: s.objectCount, size: s.objectSize },
      sampled: false,
      hasGenerations: false,
      rootsByCategory: [],
      warnings: [],
      problems: { total: 0, counts: {}, entries: [] },
      analysis: { state: 'pending', error: null, ms: null },
      reachable: null,
      unreachable: null,
      unreachableFrozen: null,
      pseudoNodeCount: 0,
      undefinedNodeCount: 0,
      parseMs: this.info.parseMs,
      preliminary: true,
    };
  }
}
