import type { StreamCursor } from './stream-cursor.js';

/**
 * The TYPE_HISTOGRAM record (tag 0x0d, dump-stream.ts): objects and bytes per type id, written by
 * the helper's stats pass before the full walk (electron/dump-reader/HeapWalker.cs). It lets a
 * host show the type table while the walk and the analysis still run; the graph built at the
 * stream's end gives the same counts and sizes for every type (same objects, free objects skipped),
 * and its type indices are the stream's type ids.
 *
 * Memory: 4 + 8 bytes per type defined so far, allocated from the types the stream has already
 * defined (never from the record's own count).
 */
export interface TypeHistogram {
  /** Names and modules of the types defined when the record came (ids 0 … length − 1). */
  readonly typeNames: readonly string[];
  readonly typeModules: readonly (string | null)[];
  /** Objects per type id (0 for a type the record does not list). */
  readonly count: Uint32Array;
  /** Σ object sizes per type id (a double: sums pass 2^32). */
  readonly bytes: Float64Array;
}

/** Called once, with the record, while the decode goes on. */
export type TypeHistogramSink = (h: TypeHistogram) => void;

/** Bytes of one entry: u32 type id, u64 count, u64 bytes. */
const ENTRY_BYTES = 20;

/**
 * Read the record's fields (after its tag). `corrupt` throws format/corrupt; a cut-off record
 * runs into the cursor's format/truncated.
 */
export async function readTypeHistogram(
  c: StreamCursor,
  typeNames: readonly string[],
  typeModules: readonly (string | null)[],
  corrupt: (what: string) => never,
): Promise<TypeHistogram> {
  await c.ensure(4);
  const n = c.u32();
  const types = typeNames.length;
  if (n > types) corrupt(`a type histogram of ${n} types, but only ${types} were defined`);
  const count = new Uint32Array(types);
  const bytes = new Float64Array(types);
  for (let i = 0; i < n; i++) {
    if (c.available < ENTRY_BYTES) await c.ensure(ENTRY_BYTES);
    const id = c.u32();
    const objects = c.u64();
    const size = c.u64();
    if (id >= types) corrupt(`the type histogram counts type ${id}, but only ${types} were defined`);
    if (count[id] !== 0) corrupt(`the type histogram counts type ${id} twice`);
    if (objects === 0 || objects > 0xffffffff) corrupt(`the type histogram counts ${objects} objects of type ${id}`);
    count[id] = objects;
    bytes[id] = size;
  }
  return { typeNames: typeNames.slice(), typeModules: typeModules.slice(), count, bytes };
}
