/**
 * Names of the .NET runtime's native events, which EventPipe sends with an empty name
 * (nettrace-format.md §A7): TraceEvent's "Task/Opcode" spelling, so event kinds match PerfView
 * baselines. Only events a heap or GC analysis (or our fixtures) meet are listed; others are
 * shown as "EventID(n)".
 */
export interface KnownEvent {
  name: string;
  opcode: number;
}

export const CLR_PROVIDER = 'Microsoft-Windows-DotNETRuntime';
export const CLR_RUNDOWN_PROVIDER = 'Microsoft-Windows-DotNETRuntimeRundown';
export const CLR_PRIVATE_PROVIDER = 'Microsoft-Windows-DotNETRuntimePrivate';
export const SAMPLE_PROFILER_PROVIDER = 'Microsoft-DotNETCore-SampleProfiler';

// [id, "Task/Opcode", opcode]
const RUNTIME: [number, string, number][] = [
  [1, 'GC/Start', 1],
  [2, 'GC/Stop', 2],
  [3, 'GC/RestartEEStop', 132],
  [4, 'GC/HeapStats', 133],
  [5, 'GC/CreateSegment', 134],
  [6, 'GC/FreeSegment', 135],
  [7, 'GC/RestartEEStart', 136],
  [8, 'GC/SuspendEEStop', 137],
  [9, 'GC/SuspendEEStart', 10],
  [10, 'GC/AllocationTick', 11],
  [11, 'GC/CreateConcurrentThread', 12],
  [12, 'GC/TerminateConcurrentThread', 13],
  [13, 'GC/FinalizersStop', 15],
  [14, 'GC/FinalizersStart', 19],
  [15, 'Type/BulkType', 10],
  [16, 'GC/BulkRootEdge', 20],
  [17, 'GC/BulkRootConditionalWeakTableElementEdge', 21],
  [18, 'GC/BulkNode', 22],
  [19, 'GC/BulkEdge', 23],
  [20, 'GC/SampledObjectAllocation', 24],
  [21, 'GC/BulkSurvivingObjectRanges', 25],
  [22, 'GC/BulkMovedObjectRanges', 26],
  [23, 'GC/GenerationRange', 27],
  [25, 'GC/MarkStackRoots', 28],
  [26, 'GC/MarkFinalizeQueueRoots', 29],
  [27, 'GC/MarkHandles', 30],
  [28, 'GC/MarkOlderGenerationRoots', 31],
  [29, 'GC/FinalizeObject', 32],
  [30, 'GC/SetGCHandle', 33],
  [31, 'GC/DestroyGCHandle', 34],
  [32, 'GC/SampledObjectAllocation', 24],
  [33, 'GC/PinObjectAtGCTime', 36],
  [35, 'GC/Triggered', 35],
  [36, 'GC/BulkRootCCW', 38],
  [37, 'GC/BulkRCW', 39],
  [38, 'GC/BulkRootStaticVar', 40],
  [50, 'ThreadPoolWorkerThread/Start', 1],
  [51, 'ThreadPoolWorkerThread/Stop', 2],
  [52, 'ThreadPoolWorkerThreadRetirement/Start', 1],
  [53, 'ThreadPoolWorkerThreadRetirement/Stop', 2],
  [54, 'ThreadPoolWorkerThreadAdjustment/Sample', 100],
  [55, 'ThreadPoolWorkerThreadAdjustment/Adjustment', 101],
  [56, 'ThreadPoolWorkerThreadAdjustment/Stats', 102],
  [57, 'ThreadPoolWorkerThread/Wait', 90],
  [61, 'ThreadPool/Enqueue', 11],
  [62, 'ThreadPool/Dequeue', 12],
  [63, 'ThreadPool/IOEnqueue', 13],
  [64, 'ThreadPool/IODequeue', 14],
  [65, 'ThreadPool/IOPack', 15],
  [80, 'Exception/Start', 1],
  [81, 'Contention/Start', 1],
  [85, 'AppDomainResourceManagement/ThreadCreated', 11],
  [91, 'Contention/Stop', 2],
  [141, 'Method/Load', 33],
  [142, 'Method/Unload', 34],
  [143, 'Method/LoadVerbose', 37],
  [144, 'Method/UnloadVerbose', 38],
  [145, 'Method/JittingStarted', 42],
  [151, 'Loader/DomainModuleLoad', 45],
  [152, 'Loader/ModuleLoad', 33],
  [153, 'Loader/ModuleUnload', 34],
  [154, 'Loader/AssemblyLoad', 37],
  [155, 'Loader/AssemblyUnload', 38],
  [156, 'Loader/AppDomainLoad', 41],
  [157, 'Loader/AppDomainUnload', 42],
  [159, 'Method/R2RGetEntryPoint', 33],
  [187, 'Runtime/Start', 1],
  [190, 'Method/ILToNativeMap', 87],
  // 200/201 have no opcode name in TraceEvent's manifest, which then shows the task alone.
  [200, 'GC', 0],
  [201, 'GC', 0],
  [202, 'GC/MarkWithType', 202],
  [204, 'GC/PerHeapHistory', 204],
  [205, 'GC/GlobalHeapHistory', 205],
  [206, 'GC/GenAwareBegin', 206],
  [207, 'GC/GenAwareEnd', 207],
];

const RUNDOWN: [number, string, number][] = [
  [141, 'Method/DCStart', 35],
  [142, 'Method/DCStop', 36],
  [143, 'Method/DCStartVerbose', 39],
  [144, 'Method/DCStopVerbose', 40],
  [145, 'Method/DCStartComplete', 14],
  [146, 'Method/DCStopComplete', 15],
  [147, 'Method/DCStartInit', 16],
  [148, 'Method/DCStopInit', 17],
  [149, 'Method/ILToNativeMapDCStart', 41],
  [150, 'Method/ILToNativeMapDCStop', 42],
  [151, 'Loader/DomainModuleDCStart', 46],
  [152, 'Loader/DomainModuleDCStop', 47],
  [153, 'Loader/ModuleDCStart', 35],
  [154, 'Loader/ModuleDCStop', 36],
  [155, 'Loader/AssemblyDCStart', 39],
  [156, 'Loader/AssemblyDCStop', 40],
  [157, 'Loader/AppDomainDCStart', 43],
  [158, 'Loader/AppDomainDCStop', 44],
  [159, 'Loader/ThreadDCStop', 48],
  [187, 'Runtime/Start', 1],
  [300, 'ExecutionCheckpointRundown/ExecutionCheckpointDCEnd', 11],
];

const PRIVATE: [number, string, number][] = [[199, 'GC/PinPlugAtGCTime', 44]];

const SAMPLE_PROFILER: [number, string, number][] = [[0, 'Thread/Sample', 0]];

function table(rows: [number, string, number][]): Map<number, KnownEvent> {
  return new Map(rows.map(([id, name, opcode]) => [id, { name, opcode }]));
}

const BY_PROVIDER = new Map<string, Map<number, KnownEvent>>([
  [CLR_PROVIDER, table(RUNTIME)],
  [CLR_RUNDOWN_PROVIDER, table(RUNDOWN)],
  [CLR_PRIVATE_PROVIDER, table(PRIVATE)],
  [SAMPLE_PROFILER_PROVIDER, table(SAMPLE_PROFILER)],
]);

/** TraceEvent's name for a runtime event that arrived without one, or null. */
export function clrEventName(provider: string, eventId: number): KnownEvent | null {
  return BY_PROVIDER.get(provider)?.get(eventId) ?? null;
}
