import { csvRow } from '../../shared/util/csv.js';
import { growWidths, jsonObject, tableCells, tableHeaders, tableLine, type Column, type OutputFormat, type Writer } from './output.js';

/**
 * Rows written as they are produced, for outputs that can be larger than one JavaScript string
 * (V8 caps a string near 512 MiB; a 2-million-row JSON is more) or than memory should hold.
 *
 * The bytes are exactly those of renderRows (output.ts) for the same rows. The rows come from a
 * factory so a table can walk them twice: once for the column widths, once to print; that costs
 * producing every row twice but never holds more than one row. Text goes out in chunks of about
 * 64 K characters; after each chunk the writer waits for 'drain' when the stream asks for it and
 * otherwise yields once to the event loop, so a closed pipe (closed-pipe.ts) stops the command
 * within one chunk instead of after the last row.
 */
export async function streamRows<R>(out: Writer, format: OutputFormat, rows: () => Iterable<R>, cols: readonly Column<R>[]): Promise<void> {
  const w = new ChunkedWriter(out);
  if (format === 'csv') {
    w.push(csvRow(cols.map((c) => c.key)));
    for (const r of rows()) {
      w.push(csvRow(cols.map((c) => c.value(r))));
      if (w.full) await w.flush();
    }
  } else if (format === 'json') {
    // JSON.stringify(array, null, 2): "[]" when empty, else each object indented by two spaces.
    const row = jsonRowWriter(cols);
    let first = true;
    for (const r of rows()) {
      w.push((first ? '[\n  ' : ',\n  ') + row(r));
      first = false;
      if (w.full) await w.flush();
    }
    w.push(first ? '[]\n' : '\n]\n');
  } else {
    const headers = tableHeaders(cols);
    const widths = headers.map((h) => h.length);
    for (const r of rows()) growWidths(widths, tableCells(r, cols));
    w.push(tableLine(headers, cols, widths) + '\n');
    w.push(tableLine(widths.map((n) => '-'.repeat(n)), cols, widths) + '\n');
    for (const r of rows()) {
      w.push(tableLine(tableCells(r, cols), cols, widths) + '\n');
      if (w.full) await w.flush();
    }
  }
  await w.flush();
}

/**
 * One row as JSON.stringify(jsonObject(row), null, 2) would write it at depth 1 of an array, built
 * directly (a third of the cost: no object, no re-indenting). Row values are flat CsvCells, whose
 * JSON is String(n) for a finite number, null for a non-finite one or an absent value, and
 * JSON.stringify for strings and booleans. Repeated keys would make the object keep the last
 * value at the first key's place, so such column lists go the generic way.
 */
function jsonRowWriter<R>(cols: readonly Column<R>[]): (r: R) => string {
  const keys = cols.map((c) => JSON.stringify(c.key));
  if (cols.length === 0 || new Set(keys).size !== keys.length) {
    return (r) => JSON.stringify(jsonObject(r, cols), null, 2).replace(/\n/g, '\n  ');
  }
  return (r) => {
    let s = '{';
    for (let i = 0; i < cols.length; i++) {
      const v = cols[i].value(r);
      const json = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : 'null') : v === undefined || v === null ? 'null' : JSON.stringify(v);
      s += (i === 0 ? '\n    ' : ',\n    ') + keys[i] + ': ' + json;
    }
    return s + '\n  }';
  };
}

const CHUNK_CHARS = 1 << 16;

interface StreamLike {
  once(event: string, listener: () => void): unknown;
  removeListener(event: string, listener: () => void): unknown;
  destroyed?: boolean;
}

/** Collects small pieces into chunks of about CHUNK_CHARS characters for one write each. */
export class ChunkedWriter {
  private parts: string[] = [];
  private chars = 0;

  constructor(private readonly out: Writer) {}

  push(s: string): void {
    this.parts.push(s);
    this.chars += s.length;
  }

  get full(): boolean {
    return this.chars >= CHUNK_CHARS;
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return;
    const text = this.parts.join('');
    this.parts = [];
    this.chars = 0;
    const accepted = (this.out.write(text) as unknown) !== false;
    const stream = this.out as Partial<StreamLike>;
    if (typeof stream.once !== 'function') return;
    if (accepted || stream.destroyed) await new Promise<void>((resolve) => setImmediate(resolve));
    else await waitForDrain(stream as StreamLike);
  }
}

function waitForDrain(s: StreamLike): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      s.removeListener('drain', done);
      s.removeListener('close', done);
      s.removeListener('error', done);
      resolve();
    };
    s.once('drain', done);
    s.once('close', done);
    s.once('error', done);
  });
}
