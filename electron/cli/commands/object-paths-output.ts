import { describePath, type RetentionPath } from '../../../shared/analysis/paths-to-roots.js';
import { GEN_FROZEN, type HeapGraph } from '../../../shared/graph/heap-graph.js';
import { PATH_STEPS_CSV, type PathStepRow } from '../../../shared/session/csv-export.js';
import { csvRow } from '../../../shared/util/csv.js';
import { formatNumber, treeIndent, type Column, type OutputFormat, type Writer } from '../output.js';
import { ChunkedWriter, streamRows } from '../stream-rows.js';
import { escapeControl } from '../terminal-text.js';

/**
 * `heapscope paths --address` output, written step by step.
 *
 * A path through a long linked list has as many steps as the list has links (millions). The bytes
 * are those of the whole-document forms, JSON.stringify({target, reachable, frozen, truncated,
 * paths},
 * null, 2) and csvText(PATH_STEPS_CSV, pathStepRows(...)), but no step is turned into more than
 * one transient row and no output is one giant string (V8 caps a string near 2^29 characters).
 * The described paths themselves (describePath: one small object per step) stay in memory.
 */
const STEP_TABLE_COLUMNS: Column<PathStepRow>[] = [
  { header: 'Step', key: 'step', value: (r) => r.step, numeric: true },
  { header: 'Type', key: 'type', value: (r) => r.type, text: (r) => treeIndent(r.step) + r.type },
  { header: 'Address', key: 'address', value: (r) => r.address, text: (r) => (r.pseudo ? '' : r.address) },
  { header: 'Bytes', key: 'size', value: (r) => r.size, numeric: true },
];

/** Process dumps name the field holding each step: the table gets a Field column. */
type StepRow = PathStepRow & { field?: string; preview?: string };
const FIELD_COLUMN: Column<StepRow> = { header: 'Field', key: 'field', value: (r) => r.field ?? '', text: (r) => escapeControl(r.field ?? '') };
/** ... and a string's value (a short quoted preview) after its address. */
const VALUE_COLUMN: Column<StepRow> = { header: 'Value', key: 'preview', value: (r) => r.preview ?? '', text: (r) => escapeControl(r.preview ?? '') };
const STEP_TABLE_WITH_FIELDS: Column<StepRow>[] = [STEP_TABLE_COLUMNS[0], FIELD_COLUMN, ...STEP_TABLE_COLUMNS.slice(1, 3), VALUE_COLUMN, ...STEP_TABLE_COLUMNS.slice(3)];

const FROZEN_UNREACHABLE_NOTE =
  'not reachable from any reported root: it is a frozen (non-GC heap) object (a string literal, a RuntimeType), which the GC never collects\n';

export async function writeObjectPaths(out: Writer, format: OutputFormat, g: HeapGraph, node: number, reachable: boolean, truncated: boolean, paths: RetentionPath[]): Promise<void> {
  const target = describePath(g, [node]).steps[0];
  if (format === 'json') return writePathsJson(out, { target, reachable, frozen: g.generation[node] === GEN_FROZEN, truncated }, paths);
  if (format === 'csv') {
    const w = new ChunkedWriter(out);
    w.push(csvRow(PATH_STEPS_CSV.header));
    for (let i = 0; i < paths.length; i++) {
      for (const r of stepRows(paths[i], i + 1)) {
        w.push(csvRow(PATH_STEPS_CSV.cells(r)));
        if (w.full) await w.flush();
      }
    }
    return w.flush();
  }
  out.write(`${escapeControl(target.typeName)} ${target.address} (${formatNumber(target.selfSize)} bytes)\n`);
  if (!reachable) {
    out.write(g.generation[node] === GEN_FROZEN ? FROZEN_UNREACHABLE_NOTE : 'not reachable from any root: it is garbage, or held only by weak handles\n');
    return;
  }
  for (let i = 0; i < paths.length; i++) {
    const p = paths[i];
    const via = p.rootDetail && p.rootDetail !== p.rootCategory ? `${p.rootCategory} › ${p.rootDetail}` : (p.rootCategory ?? 'the root itself');
    out.write(`\npath ${i + 1} of ${paths.length}: ${p.length} references, via ${escapeControl(via)}\n`);
    await streamRows(out, 'table', () => stepRows(p, i + 1), g.edgeFieldName ? STEP_TABLE_WITH_FIELDS : STEP_TABLE_COLUMNS);
  }
  if (truncated) out.write('\n(search budget reached: longer paths may exist)\n');
  else if (paths.length === 1) out.write('\n(no other path keeps it alive)\n');
}

/** One path's rows as pathStepRows(retentionPathDto(p)) gives them, one at a time. */
function* stepRows(p: RetentionPath, pathNumber: number): Generator<StepRow> {
  for (let k = 0; k < p.steps.length; k++) {
    const st = p.steps[k];
    const row: StepRow = { path: pathNumber, step: k, node: st.node, type: st.typeName, address: st.address, size: st.selfSize, pseudo: st.pseudo, rootCategory: p.rootCategory, rootDetail: p.rootDetail };
    if (st.field !== undefined) row.field = st.field;
    if (st.preview !== undefined) row.preview = st.preview;
    yield row;
  }
}

/** `value` as JSON.stringify(value, null, 2) writes it `level` levels deep in a document. */
function nested(value: unknown, level: number): string {
  return JSON.stringify(value, null, 2).replace(/\n/g, '\n' + '  '.repeat(level));
}

/** JSON.stringify({...head, paths}, null, 2) + '\n', with each path's `steps` written one by one. */
async function writePathsJson(out: Writer, head: Record<string, unknown>, paths: readonly RetentionPath[]): Promise<void> {
  const w = new ChunkedWriter(out);
  w.push('{');
  for (const [k, v] of Object.entries(head)) w.push(`\n  ${JSON.stringify(k)}: ${nested(v, 1)},`);
  if (paths.length === 0) {
    w.push('\n  "paths": []\n}\n');
    return w.flush();
  }
  w.push('\n  "paths": [');
  for (let i = 0; i < paths.length; i++) {
    w.push(i === 0 ? '\n    {' : ',\n    {');
    let first = true;
    for (const [k, v] of Object.entries(paths[i])) {
      if (v === undefined) continue; // JSON.stringify leaves such fields out
      w.push(`${first ? '' : ','}\n      ${JSON.stringify(k)}: `);
      first = false;
      if (k !== 'steps' || !Array.isArray(v) || v.length === 0) {
        w.push(nested(v, 3));
        continue;
      }
      w.push('[');
      for (let s = 0; s < v.length; s++) {
        w.push((s === 0 ? '\n        ' : ',\n        ') + nested(v[s], 4));
        if (w.full) await w.flush();
      }
      w.push('\n      ]');
    }
    w.push(first ? '}' : '\n    }');
  }
  w.push('\n  ]\n}\n');
  return w.flush();
}
