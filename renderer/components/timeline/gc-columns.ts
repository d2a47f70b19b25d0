import type { ColDef } from 'ag-grid-community';
import type { GcEventDto } from '../../../shared/ipc/contract';
import { countColumn, sizeColumn, textColumn, type SizeFormatRef } from '../grids/columns';
import { formatDuration } from '../grids/format';

/**
 * Columns of a GC table, shared by a trace's GC timeline and a live GC monitor so both read the
 * same. Times are ms with two decimals; sizes missing from the trace show as a dash.
 */
const NOT_IN_TRACE = { text: '—', title: 'not recorded in this trace' };
const ms = (p: { value: unknown }) => (p.value === null || p.value === undefined ? '—' : formatDuration(Math.round((p.value as number) * 100) / 100));

export function gcColumns(fmt: SizeFormatRef, opts: { newestFirst?: boolean } = {}): ColDef<GcEventDto>[] {
  return [
    countColumn('index', 'GC #', { width: 80, ...(opts.newestFirst ? { sort: 'desc' as const } : {}) }),
    { ...countColumn('startMs', 'Start', { width: 100 }), valueFormatter: ms },
    countColumn('generation', 'Gen', { width: 64 }),
    textColumn('kind', 'Kind', { flex: 1, minWidth: 120 }),
    textColumn('reason', 'Reason', { flex: 1, minWidth: 130 }),
    textColumn('mode', 'Mode', { flex: 0, width: 104, minWidth: 90, valueFormatter: (p) => (p.value as string | null) ?? '—' }),
    { ...countColumn('pauseMs', 'Pause', { width: 96, headerTooltip: 'Σ of the runtime suspensions counted for this GC: each suspension counts for one GC (a background GC started with an ephemeral GC in one suspension leaves it to that GC)' }), valueFormatter: ms },
    { ...countColumn('durationMs', 'Duration', { width: 100, headerTooltip: 'GC start to GC end (background GCs run while the program does)' }), valueFormatter: ms },
    sizeColumn('promotedBytes', 'Promoted', fmt, {}, NOT_IN_TRACE),
    sizeColumn('heapSizeAfter', 'Heap after', fmt, { headerTooltip: 'Σ generation sizes after the GC (GCHeapStats)' }, NOT_IN_TRACE),
  ] as ColDef<GcEventDto>[];
}
