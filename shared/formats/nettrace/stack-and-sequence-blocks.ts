import { FormatError } from '../../errors.js';

/**
 * StackBlock and SPBlock contents (nettrace-format.md §A8) and the state they feed: the stack
 * cache (valid until the next sequence point) and per-thread sequence numbers for counting the
 * events the runtime dropped (§A6.4). Stacks and threads are few; plain arrays and a Map suffice.
 */
export interface SequencePointThread {
  captureThreadId: number;
  sequenceNumber: number;
}

/** Stacks firstId, firstId + 1, …: `offsets[2k], offsets[2k + 1]` bound stack k's return addresses. */
export function decodeStackBlock(view: DataView, start: number, end: number, base: number): { firstId: number; count: number; offsets: Uint32Array } {
  if (end - start < 8) throw new FormatError('format/corrupt', 'StackBlock shorter than 8 bytes', { offset: base + start });
  const firstId = view.getInt32(start, true);
  const count = view.getInt32(start + 4, true);
  if (count < 0 || count > (end - start - 8) / 4) throw new FormatError('format/corrupt', `StackBlock with ${count} stacks`, { offset: base + start + 4 });
  const offsets = new Uint32Array(count * 2);
  let p = start + 8;
  for (let i = 0; i < count; i++) {
    if (end - p < 4) throw new FormatError('format/corrupt', 'StackBlock entry overruns the block', { offset: base + p });
    const size = view.getInt32(p, true);
    if (size < 0 || size > end - p - 4) throw new FormatError('format/corrupt', `stack of ${size} bytes`, { offset: base + p });
    offsets[2 * i] = p + 4;
    offsets[2 * i + 1] = p + 4 + size;
    p += 4 + size;
  }
  return { firstId, count, offsets };
}

/** SPBlock: `i64 timestamp, i32 threadCount, threadCount × (i64 captureThreadId, i32 sequence)`. */
export function decodeSequencePointBlock(view: DataView, start: number, end: number, base: number): SequencePointThread[] {
  if (end - start < 12) throw new FormatError('format/corrupt', 'SPBlock shorter than 12 bytes', { offset: base + start });
  const threadCount = view.getInt32(start + 8, true);
  if (threadCount < 0 || threadCount * 12 > end - start - 12) throw new FormatError('format/corrupt', `SPBlock with ${threadCount} threads`, { offset: base + start + 8 });
  const threads: SequencePointThread[] = [];
  for (let i = 0, p = start + 12; i < threadCount; i++, p += 12) {
    threads.push({ captureThreadId: view.getUint32(p + 4, true) * 4294967296 + view.getUint32(p, true), sequenceNumber: view.getUint32(p + 8, true) });
  }
  return threads;
}

/** Stacks seen since the last sequence point. */
export class StackCache {
  private stacks: { firstId: number; count: number; bytes: Uint8Array; offsets: Uint32Array }[] = [];

  add(firstId: number, count: number, bytes: Uint8Array, offsets: Uint32Array): void {
    this.stacks.push({ firstId, count, bytes, offsets });
  }

  find(id: number): Uint8Array | null {
    for (const s of this.stacks) {
      if (id >= s.firstId && id < s.firstId + s.count) {
        const k = id - s.firstId;
        return s.bytes.subarray(s.offsets[2 * k], s.offsets[2 * k + 1]);
      }
    }
    return null;
  }

  clear(): void {
    this.stacks = [];
  }
}

/**
 * Dropped-event detection: a capture thread's sequence numbers increase by 1 per event, so a
 * gap is a count of lost events; a sequence point recording a higher number than the last event
 * seen for a thread means that thread's most recent events were lost.
 */
export class SequenceTracker {
  dropped = 0;
  private readonly last = new Map<number, number>();

  /** First event of a run from one capture thread: count the gap since its previous event. */
  note(captureThreadId: number, seq: number): void {
    const last = this.last.get(captureThreadId);
    if (last !== undefined) {
      const gap = (seq - last - 1) >>> 0;
      if (gap > 0 && gap < 0x80000000) this.dropped += gap;
    }
    this.last.set(captureThreadId, seq);
  }

  /** Last event of the run. */
  close(captureThreadId: number, seq: number): void {
    this.last.set(captureThreadId, seq);
  }

  sequencePoint(threads: readonly SequencePointThread[]): void {
    for (const t of threads) {
      const last = this.last.get(t.captureThreadId);
      if (last !== undefined && t.sequenceNumber > last) this.dropped += t.sequenceNumber - last;
      this.last.set(t.captureThreadId, t.sequenceNumber);
    }
  }
}
