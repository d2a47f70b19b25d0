import { expect } from 'vitest';
import { runHelperJob, type HelperJob, type HelperThread } from '../../shared/analysis/helper-thread.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';

/**
 * A HelperThread that runs its job on this thread when joined. The two threads' shares write
 * disjoint words, so running them one after the other gives what two threads give at once;
 * test/unit/electron/workers/helper-thread-port.test.ts runs a real second thread.
 */
export function sameThreadHelper(g: HeapGraph): HelperThread & { jobs: string[] } {
  let job: HelperJob | null = null;
  const jobs: string[] = [];
  return {
    jobs,
    start(j) {
      expect(job).toBeNull();
      job = j;
      jobs.push(j.kind);
    },
    join() {
      const j = job!;
      job = null;
      return runHelperJob(g, j);
    },
  };
}

