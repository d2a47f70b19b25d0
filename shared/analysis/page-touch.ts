import type { HelperThread } from './helper-thread.js';
import { isShared } from '../util/typed-arrays.js';

/**
 * First touches of fresh scratch memory, done by the helper thread (helper-thread.ts) ahead of
 * the thread that will write it.
 *
 * Why: the kernel commits a page of a new ArrayBuffer on its first write, and the thread that
 * writes it pays for that page fault in system time. The low-memory plan's DFS writes 20 bytes
 * per node of fresh scratch (its records 8, preorder → node 4, parent 4, semidominators 4: 2 GB
 * at 100M objects) on one thread while the helper thread has nothing to do; a first touch costs
 * ~1 µs on bare metal and several µs on a VM whose host backs guest memory lazily
 * (test/perf/page-fault-cost.bench.ts). The helper commits those pages instead, so that cost
 * moves to the other core. It costs no memory: every page touched is one the analysis writes
 * anyway (the preorder columns' tail past the reachable nodes only later, when their buffers are
 * reused), and the app-memory bench's peak did not move.
 *
 * Each page is touched by an atomic compare-exchange of 0 with 0 on one of its words: a write, so
 * it commits the page, that leaves the word as it was even when the owning thread writes it at the
 * same moment (a plain read and write back could undo that write). Not an atomic add of 0: V8
 * loads the word first, which maps the kernel's zero page and then faults again to replace it,
 * two page faults per page instead of one (measured with the process's fault counter).
 */

/** One array to touch, front to back, or back to front when its owner writes it from the front quickly. */
export interface TouchSpan {
  readonly array: Uint32Array;
  readonly backward: boolean;
}

/** Words per touch: 4 KiB, the smallest page of the platforms the app runs on. */
const PAGE_WORDS = 1024;
/** How many pages between two looks at the stop word. */
const STOP_CHECK_MASK = 63;

/**
 * Starts the helper touching `spans` in order (every array shared), and returns the control
 * word to pass to stopPageTouch; null when an array is not shared (nothing started).
 */
export function startPageTouch(helper: HelperThread, spans: readonly TouchSpan[]): Int32Array | null {
  if (!spans.every((s) => isShared(s.array))) return null;
  const control = new Int32Array(new SharedArrayBuffer(64));
  Atomics.store(control, 0, 1);
  helper.start({ kind: 'touch-pages', spans, control });
  return control;
}

/** Ends the touching, done or not (also when the caller's step threw), and waits for the helper to let go. */
export function stopPageTouch(helper: HelperThread, control: Int32Array): void {
  Atomics.store(control, 0, 0);
  helper.join();
}

/**
 * The helper's side: touches one word in every 4 KiB of each span, in order, until done or until
 * control[0] is 0. Returns the number of words touched.
 */
export function touchPages(spans: readonly TouchSpan[], control: Int32Array): number {
  let touched = 0;
  for (const { array, backward } of spans) {
    const words = new Int32Array(array.buffer, array.byteOffset, array.length);
    const last = words.length - 1;
    if (last < 0) continue;
    // every page the span overlaps: a step of one page from one end, then the other end
    const steps = Math.floor(last / PAGE_WORDS);
    for (let s = 0; s <= steps + 1; s++) {
      if ((touched & STOP_CHECK_MASK) === 0 && Atomics.load(control, 0) === 0) return touched;
      const at = s <= steps ? (backward ? last - s * PAGE_WORDS : s * PAGE_WORDS) : backward ? 0 : last;
      Atomics.compareExchange(words, at, 0, 0);
      touched++;
    }
  }
  return touched;
}
