import { csvRow, type CsvCell } from '../util/csv.js';
import type { DiffRow, DominatorRow, GenerationRow, ObjectRow, TypeRow } from '../ipc/contract.js';

/**
 * CSV layouts of the exportable views and a chunker that turns a row source into CSV text pieces.
 *
 * The types layout uses the header keys of `heapscope report --format csv` (type, count,
 * shallowSize, retainedSize, scaledCount, scaledShallowSize, module) so a file exported from the
 * app and one made by the CLI can be compared column by column. Export walks ALL rows of the
 * view (its sort and filter, not its visible window) in chunks of CHUNK_ROWS, so memory stays at
 * one chunk of text however large the view is.
 */
export const CHUNK_ROWS = 2000;

export interface CsvLayout<R> {
  header: readonly string[];
  cells(row: R): CsvCell[];
}

export const TYPES_CSV: CsvLayout<TypeRow> = {
  header: ['type', 'count', 'shallowSize', 'retainedSize', 'scaledCount', 'scaledShallowSize', 'module'],
  cells: (r) => [r.type, r.count, r.shallowSize, r.retainedSize, r.scaledCount, r.scaledShallowSize, r.module],
};

export const OBJECTS_CSV: CsvLayout<ObjectRow> = {
  header: ['node', 'address', 'size', 'retainedSize', 'generation', 'reachable'],
  cells: (r) => [r.node, r.address, r.size, r.retainedSize, r.generation, r.reachable],
};

export const DOMINATORS_CSV: CsvLayout<DominatorRow> = {
  header: ['node', 'type', 'address', 'size', 'retainedSize', 'retainedPercent', 'childCount'],
  cells: (r) => [r.node, r.type, r.address, r.size, r.retainedSize, r.retainedPercent, r.childCount],
};

export const DIFF_CSV: CsvLayout<DiffRow> = {
  header: [
    'type',
    'status',
    'count',
    'baselineCount',
    'countDelta',
    'shallowSize',
    'baselineShallowSize',
    'shallowDelta',
    'retainedSize',
    'baselineRetainedSize',
    'retainedDelta',
    'module',
  ],
  cells: (r) => [
    r.type,
    r.status,
    r.count,
    r.baselineCount,
    r.countDelta,
    r.shallowSize,
    r.baselineShallowSize,
    r.shallowDelta,
    r.retainedSize,
    r.baselineRetainedSize,
    r.retainedDelta,
    r.module,
  ],
};

export const GENERATIONS_CSV: CsvLayout<GenerationRow> = {
  header: ['generation', 'count', 'size', 'sizePercent'],
  cells: (r) => [r.generation, r.count, r.size, r.sizePercent],
};

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
