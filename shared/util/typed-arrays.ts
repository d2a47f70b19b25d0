/**
 * Zero-filled typed arrays, optionally in a SharedArrayBuffer: for results that another thread
 * reads (the app runs analyses in worker threads), so handing them over costs no copy. Reading
 * and writing a shared array without Atomics is as fast as a plain one; it is only safe because
 * every such array is written by one thread and read by others after it is posted.
 */

/** Whether `a` can be handed to another thread without a copy (its buffer is a SharedArrayBuffer). */
export function isShared(a: ArrayBufferView): boolean {
  return a.buffer instanceof SharedArrayBuffer;
}

export function newUint32Array(length: number, shared = false): Uint32Array {
  return shared ? new Uint32Array(new SharedArrayBuffer(4 * length)) : new Uint32Array(length);
}

export function newUint8Array(length: number, shared = false): Uint8Array {
  return shared ? new Uint8Array(new SharedArrayBuffer(length)) : new Uint8Array(length);
}

export function newFloat64Array(length: number, shared = false): Float64Array {
  return shared ? new Float64Array(new SharedArrayBuffer(8 * length)) : new Float64Array(length);
}
