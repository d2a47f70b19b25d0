import { AppError } from '../../errors.js';
import type { MemoryBudget } from '../../graph/memory-estimate.js';

/**
 * Refusing a process dump whose graph cannot fit in memory (`memory/too-large`), as the other
 * readers do (graph/memory-estimate.ts), before the memory is spent. A dump's object count is only
 * known at the end of the helper's walk, so the check runs twice over:
 *
 * 1. Before the walk, from the helper's INFO `smallObjectHeapBytes` (bytes in the heap's small-
 *    object segments, generations 0–2 and frozen; the large and pinned object heaps hold few
 *    objects in many bytes and are left out). A heuristic: the heap is assumed to hold at least
 *    one object per MAX_AVERAGE_OBJECT_BYTES of it (real small-object heaps average far less: 43
 *    bytes on the 5M-object bench heap), so it refuses only heaps that cannot fit even then; a
 *    heap of unusually large small objects is then refused by step 2, not here.
 * 2. While the stream arrives, from the exact counts so far (every CHECK_EVERY objects and at the
 *    end): the counts only grow, so a refusal here is never wrong, and it comes as soon as the
 *    objects already read say so, before the graph is built.
 *
 * The budget is asked once, at the first check, and kept: the decoder's own columns take from the
 * memory available later, and they are part of the estimate already.
 *
 * Per object and reference, a dump costs more than a .gcdump's graph (BYTES_PER_NODE 64): the
 * decoded stream (address, type, size, generation, reference targets and field ids) lives beside
 * the graph while it is built, the graph has a field-name column, and string contents are kept.
 * Measured once: `heapscope report` on the 5M-object bench dump (5,002,675 objects, 7,002,686
 * references) peaked at 725 MB RSS, ~650 MB over a bare process. The split between objects and
 * references is not measured separately: the constants below (rounded up) give 724 MB there.
 */
export const DUMP_BYTES_PER_OBJECT = 128;
export const DUMP_BYTES_PER_REFERENCE = 12;
export const MAX_AVERAGE_OBJECT_BYTES = 512;
export const CHECK_EVERY = 1 << 16;

export function estimateDumpBytes(objects: number, references: number): number {
  return objects * DUMP_BYTES_PER_OBJECT + references * DUMP_BYTES_PER_REFERENCE;
}

export class DumpMemoryCheck {
  private budget: MemoryBudget | null = null;

  constructor(
    private readonly name: string,
    private readonly memoryBudget: (() => MemoryBudget) | undefined,
  ) {}

  /** Step 1: the helper's small-object heap bytes, before any object. */
  heapBytes(smallObjectHeapBytes: number): void {
    const b = this.take();
    if (!b) return;
    const objects = Math.floor(smallObjectHeapBytes / MAX_AVERAGE_OBJECT_BYTES);
    const estimate = estimateDumpBytes(objects, 0);
    if (estimate <= b.availableBytes) return;
    throw new AppError(
      'memory/too-large',
      `${this.name} needs more than ${size(estimate)} of memory to open: its small-object heap is ${size(smallObjectHeapBytes)}, at least ${count(objects)} objects (assuming they average at most ${MAX_AVERAGE_OBJECT_BYTES} bytes), but only ${size(b.availableBytes)} is available (${b.source})`,
      { estimateBytes: estimate, availableBytes: b.availableBytes, nodes: objects, edges: 0, smallObjectHeapBytes, limit: b.source },
    );
  }

  /** Step 2: the objects and references read so far (`complete`: the whole heap). */
  counts(objects: number, references: number, complete: boolean): void {
    const b = this.take();
    if (!b) return;
    const estimate = estimateDumpBytes(objects, references);
    if (estimate <= b.availableBytes) return;
    const what = complete ? `${count(objects)} objects and ${count(references)} references` : `at least ${count(objects)} objects and ${count(references)} references (read so far)`;
    throw new AppError(
      'memory/too-large',
      `${this.name} needs ${complete ? 'about' : 'more than'} ${size(estimate)} of memory to open (${what}), but only ${size(b.availableBytes)} is available (${b.source})`,
      { estimateBytes: estimate, availableBytes: b.availableBytes, nodes: objects, edges: references, complete, limit: b.source },
    );
  }

  private take(): MemoryBudget | null {
    if (!this.memoryBudget) return null;
    this.budget ??= this.memoryBudget();
    return this.budget;
  }
}

/** Binary units, as memory-estimate.ts writes them. */
function size(bytes: number): string {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(1)} GB`;
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MB`;
  if (bytes >= 2 ** 10) return `${(bytes / 2 ** 10).toFixed(1)} KB`;
  return bytes === 1 ? '1 byte' : `${bytes} bytes`;
}

function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
