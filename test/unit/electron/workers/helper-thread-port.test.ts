import { readFileSync } from 'node:fs';
import { MessageChannel, Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { analyzeDominance, leanDominanceAnalysis } from '../../../../shared/analysis/analyze.js';
import type { HelperJob } from '../../../../shared/analysis/helper-thread.js';
import { AppError } from '../../../../shared/errors.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { PortHelperThread } from '../../../../electron/workers/helper-thread-port.js';
import { analysisGraph } from '../../../../electron/workers/share-graph.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { randomGraph, syntheticHeap } from '../../../helpers/random-graph.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

// The low-memory plan's second thread for real (helper-thread-port.ts): an analysis worker serves
// the jobs on a port while this thread runs the analysis and sleeps on the status word.
// shared/analysis tests run the same jobs on one thread (test/helpers/same-thread-helper.ts).

let workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.map((w) => w.terminate()));
  workers = [];
});

function helperFor(g: HeapGraph): PortHelperThread {
  const script = devWorkerScripts().analysis!;
  const worker = new Worker(script.file, { workerData: script.tsEntry ? { tsEntry: script.tsEntry } : {} });
  workers.push(worker);
  const { port1, port2 } = new MessageChannel();
  worker.postMessage({ part: 'helper', graph: analysisGraph(g), port: port2 }, [port2]);
  return new PortHelperThread(port1);
}

/** A root with 12,000 children (a run long enough to hand over), each second one with a child. */
function wideHeap(): HeapGraph {
  return tinyGraph((b) => {
    const kids = Array.from({ length: 12_000 }, (_, i) => `k${i}`);
    b.root('R').ref(...kids);
    for (let i = 0; i < 12_000; i++) {
      const node = b.node(`k${i}`, [24, 32, 48, 4096][i % 4] + 8 * (i % 3), `T${i % 5}`);
      if (i % 2 === 0) {
        node.ref(`c${i}`, `k${(i * 7919) % 12_000}`);
        b.node(`c${i}`, 16, 'C');
      }
    }
  }).graph;
}

describe('PortHelperThread with an analysis worker serving the jobs', () => {
  it('gives analyzeDominance’s columns with the rescan and the widest run’s sort on the other thread', () => {
    for (const g of [wideHeap(), syntheticHeap(30_000, 2.5, 11), randomGraph(5, { nodes: 2000, types: 4, avgDegree: 3 })]) {
      const helper = helperFor(g);
      const lean = leanDominanceAnalysis(g, { helper });
      helper.close();
      const full = analyzeDominance(g);
      for (const c of ['idom', 'retainedSize', 'reachable', 'treePosition', 'treeChildStart', 'domChildren', 'typeRetained', 'typeReachableCount'] as const) {
        expect(Array.from(lean[c]), c).toEqual(Array.from(full[c]));
      }
      // the helped path: the DFS records (now the retained sizes) are shared with the helper
      expect(lean.retainedSize.buffer).toBeInstanceOf(SharedArrayBuffer);
    }
  });

  it('the semidominator look-ahead: follows the published position, survives any forest word, and ends when told', async () => {
    // the job's protocol by hand (helper-thread-port.ts), so that a job that never ends fails
    // this test by a timed-out wait instead of blocking the test's thread in join()
    const script = devWorkerScripts().analysis!;
    const worker = new Worker(script.file, { workerData: script.tsEntry ? { tsEntry: script.tsEntry } : {} });
    workers.push(worker);
    const { port1, port2 } = new MessageChannel();
    worker.postMessage({ part: 'helper', graph: analysisGraph(syntheticHeap(3000, 2, 3)), port: port2 }, [port2]);
    const n = 200_000;
    const pred = new Uint32Array(new SharedArrayBuffer(4 * n));
    const forest = new Uint32Array(new SharedArrayBuffer(8 * (n + 1)));
    for (let i = 0; i < n; i++) pred[i] = (i * 7919) % n | (i % 3 === 0 ? 0x80000000 : 0);
    // links past the forest, and every kind of word a compression leaves
    for (let i = 0; i < forest.length; i++) forest[i] = i % 5 === 0 ? 0xffffffff : (i * 31) % (2 * n);
    const control = new Int32Array(new SharedArrayBuffer(64));
    Atomics.store(control, 0, n + 1);
    const status = new Int32Array(new SharedArrayBuffer(8));
    port1.postMessage({ job: { kind: 'semi-prefetch', pred, forest, control }, status });
    // the pass's side: a position moving down, as semidominatorsForNca publishes it
    for (let at = n; at > 0; at -= 10_000) {
      Atomics.store(control, 0, at + 1);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(Atomics.load(status, 0), 'still running while the pass runs').toBe(0);
    Atomics.store(control, 0, 0);
    for (let waited = 0; Atomics.load(status, 0) === 0 && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    expect(Atomics.load(status, 0), 'done within 5 s of the end, not failed').toBe(1);
    expect(control[2], 'the nap word is never written').toBe(0);
    port1.close();
  });

  it.skipIf(process.platform !== 'linux')('the page touches: commit pages on the other thread and stop midway when told', async () => {
    const script = devWorkerScripts().analysis!;
    const worker = new Worker(script.file, { workerData: script.tsEntry ? { tsEntry: script.tsEntry } : {} });
    workers.push(worker);
    const { port1, port2 } = new MessageChannel();
    worker.postMessage({ part: 'helper', graph: analysisGraph(syntheticHeap(1000, 2, 3)), port: port2 }, [port2]);
    // a first job, so that the worker's own start-up is over before the memory is measured
    const ready = new Int32Array(new SharedArrayBuffer(8));
    const none = new Uint32Array(new SharedArrayBuffer(4));
    port1.postMessage({ job: { kind: 'sort-run', nodes: none, base: 0, k: 0, keyOf: new Float64Array(new SharedArrayBuffer(8)) }, status: ready });
    for (let waited = 0; Atomics.load(ready, 0) === 0 && waited < 10_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    const pages = 65_536; // 256 MiB, never written here
    const array = new Uint32Array(new SharedArrayBuffer(4096 * pages));
    const control = new Int32Array(new SharedArrayBuffer(64));
    Atomics.store(control, 0, 1);
    const status = new Int32Array(new SharedArrayBuffer(8));
    const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
    const before = rss();
    port1.postMessage({ job: { kind: 'touch-pages', spans: [{ array, backward: false }], control }, status });
    // the helper's touches show as this process's memory: stop once 4 MiB of them did
    for (let waited = 0; rss() - before < 4096 && waited < 5000; waited++) await new Promise((r) => setTimeout(r, 1));
    Atomics.store(control, 0, 0);
    for (let waited = 0; Atomics.load(status, 0) === 0 && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    expect(Atomics.load(status, 0), 'done within 5 s of the stop, not failed').toBe(1);
    const touched = Atomics.load(status, 1);
    expect(touched, 'it touched pages before the stop').toBeGreaterThan(0);
    expect(touched, 'and stopped before the end').toBeLessThan(pages);
    port1.close();
  });

  it('join calls `waiting` while the job runs, and returns once it ends', () => {
    const helper = helperFor(syntheticHeap(1000, 2, 3));
    // a job that runs until told to stop: the look-ahead, told by the third call of `waiting`
    const pred = new Uint32Array(new SharedArrayBuffer(4 * 1000));
    const forest = new Uint32Array(new SharedArrayBuffer(8 * 1001));
    const control = new Int32Array(new SharedArrayBuffer(64));
    Atomics.store(control, 0, pred.length + 1);
    helper.start({ kind: 'semi-prefetch', pred, forest, control });
    let calls = 0;
    helper.join(() => {
      calls++;
      if (calls === 3) Atomics.store(control, 0, 0);
    });
    expect(calls).toBe(3);
    helper.close();
  });

  it('throws the helper’s coded error from join, and takes the next job after it', () => {
    const g = syntheticHeap(3000, 2, 3);
    const helper = helperFor(g);
    helper.start({ kind: 'no-such-job' } as unknown as HelperJob);
    let error: unknown;
    try {
      helper.join();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('bug');
    expect((error as AppError).message).toMatch(/unknown job no-such-job/);
    const keyOf = new Float64Array(new SharedArrayBuffer(8 * 4)).fill(5);
    keyOf[2] = 9;
    const nodes = new Uint32Array(new SharedArrayBuffer(4 * 4));
    nodes.set([3, 2, 1, 0]);
    helper.start({ kind: 'sort-run', nodes, base: 0, k: 4, keyOf });
    expect(helper.join()).toBe(0);
    expect(Array.from(nodes)).toEqual([2, 0, 1, 3]); // retained desc, ties by ordinal
    helper.close();
  });

  it('refuses a second start before a join, and a join without a start', () => {
    const g = syntheticHeap(1000, 2, 3);
    const helper = helperFor(g);
    expect(() => helper.join()).toThrow(/without a job/);
    const nodes = new Uint32Array(new SharedArrayBuffer(8));
    const keyOf = new Float64Array(new SharedArrayBuffer(16));
    helper.start({ kind: 'sort-run', nodes, base: 0, k: 2, keyOf });
    expect(() => helper.start({ kind: 'sort-run', nodes, base: 0, k: 2, keyOf })).toThrow(/before the last one was joined/);
    helper.join();
    helper.close();
  });
});
