import { readFileSync } from 'node:fs';
import '../../shared/formats/all-readers.js';
import { readSnapshot } from '../../shared/formats/read-snapshot.js';
import { NODE_PSEUDO, NODE_UNDEFINED } from '../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../shared/util/byte-source.js';

/**
 * Facts about a snapshot file computed in-process, straight from the graph, so tests of other
 * layers (workers, server, UI) compare against the engine instead of hard-coding the numbers of
 * one particular sample (which is regenerated from a live capture now and then).
 */
export interface SnapshotFacts {
  nodeCount: number;
  objectCount: number;
  /** Distinct type names that have at least one object (what per-name views list). */
  namesWithObjects: number;
}

export async function snapshotFacts(path: string): Promise<SnapshotFacts> {
  const g = await readSnapshot(new MemoryByteSource(new Uint8Array(readFileSync(path))));
  let objectCount = 0;
  const names = new Set<string>();
  for (let i = 0; i < g.nodeCount; i++) {
    if (g.nodeFlags[i] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
    objectCount++;
    names.add(g.types.names[g.nodeType[i]]);
  }
  return { nodeCount: g.nodeCount, objectCount, namesWithObjects: names.size };
}
