import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discardAnalysisChildren, prepareAnalysisChildren, spawnAnalysisChildren, startAnalysis } from '../../../../electron/workers/analysis-runner.js';
import { shareGraph } from '../../../../electron/workers/share-graph.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { analyzeDominance, analyzeGraph, type HeapAnalysis } from '../../../../shared/analysis/analyze.js';
import { AppError, CancelledError } from '../../../../shared/errors.js';
import type { HeapGraph } from '../../../../shared/graph/heap-graph.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { randomGraph, syntheticHeap } from '../../../helpers/random-graph.js';
import { makeSyntheticHeap } from '../../../tools/synthetic-heap.js';

// Analysis children started before the graph exists (while a file parses), with plain scripts
// standing in for a child that dies during start-up.
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-analysis-runner-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const graph = () =>
  shareGraph(
    tinyGraph((b) => {
      b.root('S').ref('A', 'B');
      b.node('A', 10).ref('C');
      b.node('B', 20).ref('C');
      b.node('C', 40);
      b.node('Dead', 3).ref('A');
    }).graph,
  );

describe('analysis children spawned early', () => {
  it('run the analysis given later: the same result as in-process', async () => {
    const data = { analysis: devWorkerScripts().analysis };
    const children = spawnAnalysisChildren(data);
    expect(children).not.toBeNull();
    await new Promise((r) => setTimeout(r, 200)); // the "parse": children start meanwhile
    const g = graph();
    const analysis = (await startAnalysis(g, () => {}, data, children).done).analysis as HeapAnalysis;
    const want = analyzeGraph(g);
    // every field, whichever child computed it (dominance: tree; the other: retainers, per-type figures)
    const plain = (a: object) => JSON.stringify(a, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Uint32Array) : v));
    expect(Object.keys(analysis).sort()).toEqual(Object.keys(want).sort());
    for (const key of Object.keys(want) as (keyof typeof want)[]) expect(plain({ v: analysis[key] }), key).toBe(plain({ v: want[key] }));
    expect(analysis.retainedSize[0]).toBe(70); // the root: A, B, C (Dead is unreachable)
  });

  it('with scratch prepared from a size hint (too small, exact, or roomy): still the in-process result', async () => {
    const data = { analysis: devWorkerScripts().analysis };
    const plain = (a: object) => JSON.stringify(a, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Uint32Array) : v));
    for (const [nodes, edges] of [[2, 2], [6, 7], [500, 2000]]) {
      const children = spawnAnalysisChildren(data);
      prepareAnalysisChildren(children, nodes, edges);
      const g = graph();
      const analysis = (await startAnalysis(g, () => {}, data, children).done).analysis as HeapAnalysis;
      const want = analyzeGraph(g);
      for (const key of Object.keys(want) as (keyof typeof want)[]) expect(plain({ v: analysis[key] }), `${key}, hint ${nodes}`).toBe(plain({ v: want[key] }));
    }
  });

  it('a child that died while waiting fails the analysis with worker/crashed, not a hang', async () => {
    const script = join(dir, 'dies.mjs');
    writeFileSync(script, 'throw new Error("start-up failed");\n');
    const data = { analysis: { file: script } };
    const children = spawnAnalysisChildren(data)!;
    await new Promise<void>((r) => children.dominance.worker.once('exit', () => r()));
    const run = startAnalysis(graph(), () => {}, data, children);
    const err = await run.done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('worker/crashed');
    expect((err as AppError).message).toContain('start-up failed');
  });

  it('discarding unused children (a failed or cancelled load) ends their threads', async () => {
    const children = spawnAnalysisChildren({ analysis: devWorkerScripts().analysis })!;
    const exits = [children.dominance, children.retainers].map((c) => new Promise<number>((r) => c.worker.once('exit', r)));
    discardAnalysisChildren(children);
    expect(await Promise.all(exits)).toHaveLength(2);
  });

  it('inline when no child script is configured', () => {
    expect(spawnAnalysisChildren({ analysis: null })).toBeNull();
  });
});

// The two children split the phases by their dependencies (analysis-runner.ts): every column must
// be the one analyzeGraph computes on one thread, on graphs with cycles, weak roots, dead cliques,
// duplicate references and deep chains, and cancelling must stop both threads.
describe('analysis split over two children', () => {
  const plain = (a: object) => JSON.stringify(a, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Uint32Array) : v));
  const sameAsInProcess = async (g: HeapGraph, label: string) => {
    const data = { analysis: devWorkerScripts().analysis };
    const shared = shareGraph(g);
    const analysis = (await startAnalysis(shared, () => {}, data).done).analysis as HeapAnalysis;
    const want = analyzeGraph(g);
    expect(Object.keys(analysis).sort(), label).toEqual(Object.keys(want).sort());
    for (const key of Object.keys(want) as (keyof typeof want)[]) {
      if (key === 'retainers') {
        expect(plain(analysis.retainers), `${label}: retainers`).toBe(plain(want.retainers));
      } else expect(plain({ v: analysis[key] }), `${label}: ${key}`).toBe(plain({ v: want[key] }));
    }
  };

  it('every column equals the in-process analysis on random graphs', async () => {
    for (let seed = 1; seed <= 6; seed++) {
      await sameAsInProcess(randomGraph(seed, { nodes: 50 + seed * 40, types: 1 + (seed % 7), avgDegree: 0.5 + (seed % 5) }), `random seed ${seed}`);
    }
  }, 60_000);

  it('every column equals the in-process analysis on a 60K-object synthetic .NET heap and a 40K-node random heap', async () => {
    await sameAsInProcess(makeSyntheticHeap({ objects: 60_000, seed: 3 }), 'synthetic heap');
    await sameAsInProcess(syntheticHeap(40_000, 2.5, 5), 'random heap');
  }, 60_000);

  it('cancel while the dominators run: CancelledError, and both children exit', async () => {
    const data = { analysis: devWorkerScripts().analysis };
    const children = spawnAnalysisChildren(data)!;
    const exits = [children.dominance, children.retainers].map((c) => new Promise<number>((r) => c.worker.once('exit', r)));
    const g = shareGraph(makeSyntheticHeap({ objects: 400_000, seed: 2 }));
    let run: ReturnType<typeof startAnalysis> | null = null;
    let phases = 0;
    run = startAnalysis(
      g,
      () => {
        if (phases++ === 0) run!.cancel();
      },
      data,
      children,
    );
    const err = await run.done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledError);
    expect(await Promise.all(exits)).toHaveLength(2);
  }, 60_000);
});


// The low-memory plan (issue 17): one child, the lean pipeline, no retainer index.
describe('analysis in the low-memory plan', () => {
  const plain = (a: object) => JSON.stringify(a, (_k, v: unknown) => (ArrayBuffer.isView(v) ? Array.from(v as Uint32Array) : v));
  const sameAsInProcess = async (g: HeapGraph, label: string, inline = false) => {
    const data = { analysis: inline ? null : devWorkerScripts().analysis };
    const phases: string[] = [];
    const { analysis } = await startAnalysis(shareGraph(g), (p) => void (phases.at(-1) !== p && phases.push(p)), data, null, true).done;
    const want = analyzeDominance(g);
    expect(Object.keys(analysis).sort(), label).toEqual(Object.keys(want).sort());
    for (const key of Object.keys(want) as (keyof typeof want)[]) expect(plain({ v: analysis[key] }), `${label}: ${key}`).toBe(plain({ v: want[key] }));
    expect(phases, label).toEqual(['dominators', 'retained', 'types', 'tree']);
  };

  it('every column but the retainer index equals the in-process analysis, in a child and inline', async () => {
    for (let seed = 1; seed <= 4; seed++) await sameAsInProcess(randomGraph(seed, { nodes: 80 + seed * 50, types: 1 + (seed % 5), avgDegree: 0.5 + seed }), `random seed ${seed}`);
    await sameAsInProcess(makeSyntheticHeap({ objects: 30_000, seed: 4 }), 'synthetic heap');
    await sameAsInProcess(makeSyntheticHeap({ objects: 5_000, seed: 5 }), 'synthetic heap inline', true);
  }, 60_000);

  it('spawned children: the other one exits at once, cancel stops the working one', async () => {
    const data = { analysis: devWorkerScripts().analysis };
    const children = spawnAnalysisChildren(data)!;
    const exits = [children.dominance, children.retainers].map((c) => new Promise<number>((r) => c.worker.once('exit', r)));
    let run: ReturnType<typeof startAnalysis> | null = null;
    let calls = 0;
    run = startAnalysis(shareGraph(makeSyntheticHeap({ objects: 400_000, seed: 2 })), () => void (calls++ === 0 && run!.cancel()), data, children, true);
    const err = await run.done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CancelledError);
    expect(await Promise.all(exits)).toHaveLength(2);
  }, 60_000);

  // The working child then waits on a helper that will never answer (helper-thread-port.ts): only
  // the runner, which sees the helper exit, can end that wait, by terminating the working child.
  it.skipIf(availableParallelism() < 2)('the helper child dies in the rescan: worker/crashed, and the working child exits, not a hang', async () => {
    const data = { analysis: devWorkerScripts().analysis };
    const children = spawnAnalysisChildren(data)!;
    const exits = [children.dominance, children.retainers].map((c) => new Promise<number>((r) => c.worker.once('exit', r)));
    const g = shareGraph(makeSyntheticHeap({ objects: 2_000_000, seed: 3 }));
    let killed = false;
    // the rescan reports the second quarter of the 'dominators' phase (dominators.ts): it runs
    // on both threads, and the working child has handed the helper its share or is about to
    const run = startAnalysis(g, (phase, done, total) => {
      if (!killed && phase === 'dominators' && done > total / 4 && done < total / 2) {
        killed = true;
        void children.retainers.worker.terminate();
      }
    }, data, children, true);
    const err = await run.done.catch((e: unknown) => e);
    expect(killed, 'the rescan reported progress').toBe(true);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('worker/crashed');
    expect(await Promise.all(exits)).toHaveLength(2);
  }, 60_000);
});
