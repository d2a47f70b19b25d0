import { GrowableUint32Array, GrowableUint8Array } from '../../util/growable-array.js';
import { isAscii, utf8Text } from '../../util/utf8.js';

/**
 * The STRING records of a dump stream (dump-stream.ts) as UTF-8 bytes in one pooled array with an
 * end offset per id, made into JS strings only when asked for.
 *
 * Why: the stream's string table holds a few thousand names (types, fields, frames, INFO) and one
 * text per distinct string value, a million on a 5M-object heap. A JS string each cost the
 * decoder a UTF-8 decode and the collector a million objects to trace and move, on the way to the
 * first type rows, for texts that only the Strings view, the inspector and a few rows read. The
 * pool costs the bytes plus 4 per string; names are decoded once when first used (`get`, cached),
 * value texts by graph/string-values.ts when a row shows one.
 */
export class StreamStrings {
  private readonly pool: GrowableUint8Array;
  private readonly ends = new GrowableUint32Array(1024);
  /** Decoded strings by id: only names and INFO values go through `get`, a few thousand. */
  private readonly decoded = new Map<number, string>();

  constructor(capacity = 1 << 16) {
    this.pool = new GrowableUint8Array(capacity);
  }

  get length(): number {
    return this.ends.length;
  }

  /** Append the next id's UTF-8 bytes. */
  add(utf8: Uint8Array): void {
    this.pool.reserve(utf8.length);
    this.pool.raw.set(utf8, this.pool.length);
    this.pool.length += utf8.length;
    this.ends.push(this.pool.length);
  }

  start(id: number): number {
    return id === 0 ? 0 : this.ends.raw[id - 1];
  }

  end(id: number): number {
    return this.ends.raw[id];
  }

  /** String `id` as text (decoded on first use, then cached). */
  get(id: number): string {
    let s = this.decoded.get(id);
    if (s === undefined) {
      s = utf8Text(this.pool.raw, this.start(id), this.end(id));
      this.decoded.set(id, s);
    }
    return s;
  }

  /** UTF-16 length of string `id`: its byte count when ASCII, else that of its decoded text (not cached). */
  charLength(id: number): number {
    const start = this.start(id);
    const end = this.end(id);
    return isAscii(this.pool.raw, start, end) ? end - start : utf8Text(this.pool.raw, start, end).length;
  }

  /**
   * The pooled bytes (ids' offsets are start/end), for the graph to keep: a view of the pool when
   * its unused tail is at most an eighth, else a trimmed copy, so the doubling's slack (up to as
   * much again) is not kept with the graph.
   */
  bytes(): Uint8Array {
    return this.pool.finishUsed();
  }
}
