import { csvRow, type CsvCell } from '../util/csv.js';
import type { DiffRow, DominatorRow, GcEventDto, GenerationRow, ObjectRow, RetentionPathDto, StringRow, TypePathNode, TypeRow } from '../ipc/contract.js';

/**
 * CSV layouts of the exportable views and a chunker that turns a row source into CSV text pieces.
 *
 * The types layout uses the header keys of `heapscope report --format csv` (type, count,
 * shallowSize, retainedSize, scaledCount, scaledShallowSize, unreachableCount, unreachableSize, module) so a file exported from the
 * app and one made by the CLI can be compared column by column. Export walks ALL rows of the
 * view (its sort and filter, not its visible window) in chunks of CHUNK_ROWS, so memory stays at
 * one chunk of text however large the view is.
 */
export const CHUNK_ROWS = 2000;

export interface CsvLayout<R> {
  header: readonly string[];
  cells(row: R): CsvCell[];
}

/** Keys of R whose values can be written as one CSV cell. */
type CellKey<R> = { [K in keyof R]: R[K] extends CsvCell ? K : never }[keyof R] & string;

/** A layout whose header names are the row's own fields, in this order (every layout but the GC timeline's). */
function fieldLayout<R>() {
  return (keys: readonly CellKey<R>[]): CsvLayout<R> => ({ header: keys, cells: (r) => keys.map((k) => r[k] as CsvCell) });
}

export const TYPES_CSV = fieldLayout<TypeRow>()(['type', 'count', 'shallowSize', 'retainedSize', 'scaledCount', 'scaledShallowSize', 'unreachableCount', 'unreachableSize', 'module']);

export const OBJECTS_CSV = fieldLayout<ObjectRow>()(['node', 'address', 'size', 'retainedSize', 'generation', 'reachable']);

/** Process dumps: the objects layout plus each string's value (its first ROW_VALUE_CHARS chars) and full length. */
export const OBJECTS_WITH_VALUES_CSV = fieldLayout<ObjectRow>()(['node', 'address', 'size', 'retainedSize', 'generation', 'reachable', 'value', 'valueLength']);

export const DOMINATORS_CSV = fieldLayout<DominatorRow>()(['node', 'type', 'address', 'size', 'retainedSize', 'retainedPercent', 'childCount']);

/** The header keys and columns of `heapscope strings --format csv`. */
export const STRINGS_CSV = fieldLayout<StringRow>()(['count', 'wastedBytes', 'totalBytes', 'length', 'value', 'truncated']);

export const DIFF_CSV = fieldLayout<DiffRow>()(['type', 'status', 'count', 'baselineCount', 'countDelta', 'shallowSize', 'baselineShallowSize', 'shallowDelta', 'retainedSize', 'baselineRetainedSize', 'retainedDelta', 'module']);

export const GENERATIONS_CSV = fieldLayout<GenerationRow>()(['generation', 'count', 'size', 'sizePercent']);

/** ms rounded to µs, as `heapscope gc-timeline` writes them. */
const ms3 = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);
const after = (r: GcEventDto, g: number): number | null => (r.sizesAfter ? (r.sizesAfter[g] ?? null) : null);

/**
 * One row per GC with the header keys and values of `heapscope gc-timeline --format csv`
 * (electron/cli/commands/gc-timeline.ts), for traces and for live GC monitors alike.
 */
export const GC_TIMELINE_CSV: CsvLayout<GcEventDto> = {
  header: ['number', 'generation', 'type', 'reason', 'startMs', 'pauseMs', 'durationMs', 'gen0After', 'gen1After', 'gen2After', 'lohAfter', 'pohAfter', 'promotedBytes', 'mode'],
  cells: (r) => [r.index, r.generation, r.kind, r.reason, ms3(r.startMs), ms3(r.pauseMs), ms3(r.durationMs), after(r, 0), after(r, 1), after(r, 2), after(r, 3), after(r, 4), r.promotedBytes, r.mode],
};

/** One step of an object's retention path per row, as `heapscope paths --address … --format csv`. */
export interface PathStepRow {
  path: number;
  step: number;
  node: number;
  type: string;
  address: string;
  size: number;
  pseudo: boolean;
  rootCategory: string | null;
  rootDetail: string | null;
}

export const PATH_STEPS_CSV = fieldLayout<PathStepRow>()(['path', 'step', 'node', 'type', 'address', 'size', 'pseudo', 'rootCategory', 'rootDetail']);

export function pathStepRows(paths: readonly RetentionPathDto[]): PathStepRow[] {
  const rows: PathStepRow[] = [];
  paths.forEach((p, i) =>
    p.steps.forEach((st, k) =>
      rows.push({ path: i + 1, step: k, node: st.node, type: st.type, address: st.address, size: st.size, pseudo: st.pseudo, rootCategory: p.rootCategory, rootDetail: p.rootDetail }),
    ),
  );
  return rows;
}

/** One branch of a type's merged path tree per row, as `heapscope paths --type … --format csv`. */
export const PATH_BRANCHES_CSV = fieldLayout<TypePathNode>()(['id', 'parent', 'depth', 'count', 'type', 'endsHere', 'cutOff', 'omittedBranches', 'omittedCount']);

/** A view's rows as position → row, with the total (positions come from a cached order). */
export interface RowSource<R> {
  total: number;
  row(position: number): R;
}

/** CSV text in pieces: the header, then CHUNK_ROWS rows per piece. */
export function* csvChunks<R>(layout: CsvLayout<R>, source: RowSource<R>): Generator<string, number> {
  yield csvRow(layout.header);
  let text = '';
  let inChunk = 0;
  for (let i = 0; i < source.total; i++) {
    text += csvRow(layout.cells(source.row(i)));
    if (++inChunk === CHUNK_ROWS) {
      yield text;
      text = '';
      inChunk = 0;
    }
  }
  if (text) yield text;
  return source.total;
}

export function arraySource<R>(rows: readonly R[]): RowSource<R> {
  return { total: rows.length, row: (i) => rows[i] };
}

/** All of `rows` as one CSV text (small row sets: the CLI's outputs, tests). */
export function csvText<R>(layout: CsvLayout<R>, rows: readonly R[]): string {
  return [...csvChunks(layout, arraySource(rows))].join('');
}
