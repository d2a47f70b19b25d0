import { CancelledError } from '../../../../../shared/errors.js';
import type { ByteSource } from '../../../../../shared/util/byte-source.js';
import type { CancellationToken } from '../../../../../shared/util/cancellation.js';
import { StreamWriter } from './hand-built-stream.js';

/**
 * Hostile .gcdump shapes built in code (not a test file): nested private objects whose re-reads
 * multiply, and sources that claim far more bytes than they hold in memory.
 */

/**
 * Type descriptors T0 … TL, each written as a private object (tag 05). T_l carries, after its
 * name, `k` nested objects whose type is an ObjectReference to T_(l-1); the entry object's type
 * refers to T_L. A reader that re-reads a private object at every reference does k^L reads.
 */
export function nestedPrivateObjects(k: number, levels: number): Uint8Array {
  const w = new StreamWriter();
  // The entry object (7 bytes) comes first; its type reference points at T_L, laid out after it.
  const descriptorBytes = (l: number): number => 15 + `T${l}`.length + (l > 0 ? 7 * k : 0);
  let label = w.offset + 7;
  for (let l = 0; l < levels; l++) label += descriptorBytes(l);
  w.bytes(4, 2);
  w.s.u32(label);
  w.bytes(6);
  let prev = -1;
  for (let l = 0; l <= levels; l++) {
    const at = w.offset;
    w.bytes(5, 1);
    w.s.i32(0);
    w.s.i32(0);
    w.s.string(`T${l}`);
    if (prev >= 0) {
      for (let i = 0; i < k; i++) {
        w.bytes(5, 2);
        w.s.u32(prev);
        w.bytes(6);
      }
    }
    w.bytes(6);
    if (w.offset - at !== descriptorBytes(l)) throw new Error('descriptor size mismatch');
    prev = at;
  }
  if (prev !== label) throw new Error('label mismatch');
  return w.finish();
}

/** One stretch of a PatternSource: real bytes, or `length` copies of `fill` that are never stored. */
export type Stretch = Uint8Array | { fill: number; length: number };

/**
 * A ByteSource of real bytes with long runs of one value between them, as a sparse file on disk
 * would be: a 3 GB claim costs only what the reader itself asks for. Counts the bytes handed out.
 */
export class PatternSource implements ByteSource {
  readonly size: number;
  bytesRead = 0;
  private readonly starts: number[] = [];

  constructor(
    private readonly stretches: Stretch[],
    readonly name = 'hostile.gcdump',
  ) {
    let at = 0;
    for (const s of stretches) {
      this.starts.push(at);
      at += s.length;
    }
    this.size = at;
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    const start = Math.max(0, Math.min(offset, this.size));
    const end = Math.max(start, Math.min(offset + length, this.size));
    const out = new Uint8Array(end - start);
    for (let i = 0; i < this.stretches.length; i++) {
      const s = this.stretches[i];
      const from = Math.max(start, this.starts[i]);
      const to = Math.min(end, this.starts[i] + s.length);
      if (from >= to) continue;
      if (s instanceof Uint8Array) out.set(s.subarray(from - this.starts[i], to - this.starts[i]), from - start);
      else out.fill(s.fill, from - start, to - start);
    }
    this.bytesRead += out.length;
    return out;
  }
}

/**
 * A token that fires `ms` after it is made. A reader stuck in exponential work never yields to
 * the event loop (every await is a microtask on an in-memory source), so a test timeout cannot
 * stop it; its own cancellation checks can, and the test then fails with 'cancelled'.
 */
export function deadlineToken(ms: number): CancellationToken {
  const end = Date.now() + ms;
  return {
    get isCancelled() {
      return Date.now() > end;
    },
    throwIfCancelled() {
      if (Date.now() > end) throw new CancelledError(`still running after ${ms} ms`);
    },
  };
}
