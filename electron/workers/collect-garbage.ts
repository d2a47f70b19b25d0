import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A full garbage collection of this thread's V8 heap, run by a snapshot worker after a session
 * closes while other sessions keep the worker alive (a worker whose last session closes is
 * terminated instead: worker-pool.ts).
 *
 * Why: a closed session's graph is a few large ArrayBuffers / SharedArrayBuffers, held by a
 * handful of small JS objects. Dropping the references frees nothing until V8 collects those
 * objects, and an idle worker allocates nothing that would start a collection, so a closed tab's
 * hundreds of MB stayed mapped until the next query of another tab happened to trigger a GC
 * (measured in test/integration/tab-memory.test.ts). The cost is one full GC of what the worker
 * still holds (the other tabs' graphs are a few objects each, so it is short), once per close.
 *
 * `gc` is exposed the way jest-leak-detector does it: the --expose-gc flag set at run time, then
 * read from a fresh context. Returns false when that is not possible (then V8 collects later).
 */
let gc: (() => void) | null | undefined;

export function collectGarbage(): boolean {
  if (gc === undefined) {
    gc = (globalThis as { gc?: () => void }).gc ?? null;
    if (!gc) {
      try {
        setFlagsFromString('--expose-gc');
        gc = runInNewContext('gc') as () => void;
      } catch {
        gc = null;
      }
    }
  }
  gc?.();
  return gc !== null;
}
