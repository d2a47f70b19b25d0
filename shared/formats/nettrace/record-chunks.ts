/**
 * Append-only storage of fixed-width records of u32 words, in chunks instead of one doubling
 * array: a heap walk of 10M objects and 25M references is ~400 MB of raw records, and a doubling
 * array would need up to 3× that while it grows (old + new buffer) plus up to 2× slack after.
 * Chunks start small (tiny traces stay tiny), double up to `maxChunkRecords` and never move, so
 * the slack is at most one chunk and a reader can release chunks it has consumed (`release`).
 *
 * Writers reserve room for a whole event at once, then write words directly:
 *
 *   const ch = store.room(count);  let w = store.wordAt;
 *   for (...) { ch[w++] = lo; ch[w++] = hi; }
 *   store.commit(w);
 *
 * Two stores that always reserve and commit the same record counts have identical chunk
 * boundaries, so one cursor (chunk index, record index) walks both.
 */
export class RecordChunks {
  readonly chunks: Uint32Array[] = [];
  /** Records used in each chunk (the last entry is the open chunk, updated by `commit`). */
  readonly counts: number[] = [];
  private current: Uint32Array = new Uint32Array(0);
  private capacity = 0; // records in `current`
  private used = 0; // records written into `current`
  private sealed = 0; // records in chunks before `current`

  constructor(
    readonly width: number,
    private readonly maxChunkRecords = 1 << 18,
    private readonly firstChunkRecords = 1 << 10,
  ) {}

  /** Records stored so far. */
  get length(): number {
    return this.sealed + this.used;
  }

  /** Word offset in the chunk returned by `room` where the next record goes. */
  get wordAt(): number {
    return this.used * this.width;
  }

  /** The chunk to write the next `records` records into, at `wordAt`. */
  room(records: number): Uint32Array {
    if (this.used + records <= this.capacity) return this.current;
    const grown = this.chunks.length === 0 ? this.firstChunkRecords : Math.min(this.maxChunkRecords, 2 * this.capacity);
    this.sealed += this.used;
    this.capacity = Math.max(records, grown);
    this.current = new Uint32Array(this.capacity * this.width);
    this.used = 0;
    this.chunks.push(this.current);
    this.counts.push(0);
    return this.current;
  }

  /** Records up to word offset `wordEnd` of the current chunk are written. */
  commit(wordEnd: number): void {
    this.used = wordEnd / this.width;
    this.counts[this.counts.length - 1] = this.used;
  }

  /** Drop chunk `i` once it has been read for the last time (its memory can be reclaimed). */
  release(i: number): void {
    this.chunks[i] = EMPTY;
    if (i === this.chunks.length - 1) {
      this.current = EMPTY;
      this.capacity = 0;
    }
  }

  /** Drop every chunk. */
  clear(): void {
    for (let i = 0; i < this.chunks.length; i++) this.release(i);
  }
}

const EMPTY = new Uint32Array(0);
