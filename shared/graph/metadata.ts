/**
 * What a snapshot says about itself: where it came from, when, and how to scale it.
 *
 * Every field is present in every snapshot (null / 0 when the format does not carry it), so
 * consumers never branch on the format to read metadata.
 */

export type SnapshotFormat = 'gcdump' | 'nettrace' | 'cf-heaplog' | 'dump' | 'synthetic';

/**
 * One GC heap segment with its generation boundaries (PerfView's GCHeapDumpSegment).
 *
 * Bigints are fine here: segments are few and read only once, when generations are computed.
 * `gen4End` is 0 when the producer predates the pinned-object heap.
 */
export interface HeapSegment {
  start: bigint;
  end: bigint;
  gen0End: bigint;
  gen1End: bigint;
  gen2End: bigint;
  gen3End: bigint;
  gen4End: bigint;
}

/** COM interop details from PerfView's InteropInfo (kept whole for display and round trips). */
export interface InteropInfo {
  rcws: { node: number; refCount: number; iUnknown: bigint; jupiter: bigint; vtable: bigint; firstInterface: number; interfaceCount: number }[];
  ccws: { node: number; refCount: number; iUnknown: bigint; handle: bigint; firstInterface: number; interfaceCount: number }[];
  interfaces: { isRcw: boolean; owner: number; typeIndex: number; address: bigint; firstVTable: bigint; firstFunc: bigint }[];
  modules: { baseAddress: bigint; fileSize: number; timeStamp: number; fileName: string | null }[];
}

export interface SnapshotMetadata {
  format: SnapshotFormat;
  /** e.g. "GCHeapDump v10", "NetTrace v4", "CF heap log v2". */
  formatVersion: string | null;
  /** The tool that wrote the file ("dotnet-gcdump", "heapscope"), null when the file does not say. */
  creationTool: string | null;
  processName: string | null;
  processId: number;
  machineName: string | null;
  /** Wall-clock time of the capture as written by the producer (no time zone), ISO 8601, or null. */
  timeCollected: string | null;
  /** 4 or 8; 0 when unknown. */
  pointerSize: number;
  /** PerfView sampling: original count / sampled count (1 when not sampled). */
  averageCountMultiplier: number;
  averageSizeMultiplier: number;
  /** Per-type scale factors of a sampled dump, indexed by type; null when not sampled. */
  countMultipliersByType: Float32Array | null;
  totalProcessCommit: number;
  totalProcessWorkingSet: number;
  collectionLog: string | null;
  /** TotalSize as written in the file (compare with the graph's Σ sizes). */
  declaredTotalSize: number | null;
  /** GC segments with generation boundaries; null when the file carries none. */
  segments: HeapSegment[] | null;
  interop: InteropInfo | null;
  /** Format-specific facts (AppDomain name, timestamps, event counts), for display. */
  extra: Record<string, string | number>;
}

export function emptyMetadata(format: SnapshotFormat): SnapshotMetadata {
  return {
    format,
    formatVersion: null,
    creationTool: null,
    processName: null,
    processId: 0,
    machineName: null,
    timeCollected: null,
    pointerSize: 0,
    averageCountMultiplier: 1,
    averageSizeMultiplier: 1,
    countMultipliersByType: null,
    totalProcessCommit: 0,
    totalProcessWorkingSet: 0,
    collectionLog: null,
    declaredTotalSize: null,
    segments: null,
    interop: null,
    extra: {},
  };
}

/** Whether the dump was sampled (PerfView), i.e. counts and sizes must be scaled. */
export function isSampled(m: SnapshotMetadata): boolean {
  return m.countMultipliersByType !== null || m.averageCountMultiplier !== 1 || m.averageSizeMultiplier !== 1;
}

/** .NET DateTime ticks (100 ns since 0001-01-01, no zone) → ISO string without zone, or null for 0. */
export function ticksToIso(ticks: bigint): string | null {
  if (ticks <= 0n) return null;
  const EPOCH_TICKS = 621_355_968_000_000_000n; // 1970-01-01
  const ms = Number((ticks - EPOCH_TICKS) / 10_000n);
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return null;
  return d.toISOString().replace('Z', '');
}
