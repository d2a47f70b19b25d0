import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeGcdumpFile } from '../../../../electron/files/write-gcdump-file.js';
import { SnapshotHost } from '../../../../electron/workers/snapshot-host.js';
import type { WorkerEvent } from '../../../../electron/workers/worker-protocol.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { estimateSnapshotBytes } from '../../../../shared/graph/memory-estimate.js';
import type { FileEntry, FileToken, SessionId, SnapshotSummary } from '../../../../shared/ipc/contract.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { makeSyntheticHeap } from '../../../tools/synthetic-heap.js';

// The app's low-memory plan (issue 17; analysis-runner.ts): a snapshot worker with its analysis
// children opens the same file in both plans, and every view answers the same. The plan is chosen
// by the memory available (HEAPSCOPE_MEMORY_LIMIT here): above twice the app's estimate the fast
// plan, between the estimate and twice it the low one. Which plan ran shows in the progress: only
// the low plan's one child reports the per-type phase.

let dir: string;
let synthetic: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-low-memory-'));
  synthetic = join(dir, 'synthetic.gcdump');
  await writeGcdumpFile(synthetic, makeSyntheticHeap({ objects: 20_000, seed: 7 }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Plan = 'fast' | 'low';

async function openIn(plan: Plan, path: string) {
  const events: WorkerEvent[] = [];
  const host = new SnapshotHost((e) => void events.push(e), { analysis: devWorkerScripts().analysis });
  const sessionId = 's1' as SessionId;
  const file: FileEntry = { token: 't' as FileToken, name: 'f.gcdump', displayPath: path, size: statSync(path).size, modifiedMs: 0, source: 'path', formatHint: 'gcdump', exists: true };
  const saved = process.env.HEAPSCOPE_MEMORY_LIMIT;
  let summary: SnapshotSummary;
  try {
    // first open with room to spare, to learn the size; the low plan's limit is 1.5 × the estimate
    if (plan === 'low') {
      const probe = new SnapshotHost(() => undefined, { analysis: null });
      const s = await probe.load({ sessionId, path, file });
      await probe.close({ sessionId });
      process.env.HEAPSCOPE_MEMORY_LIMIT = String(Math.floor(1.5 * estimateSnapshotBytes(s.nodeCount, s.edgeCount, 'app')));
    } else delete process.env.HEAPSCOPE_MEMORY_LIMIT;
    await host.load({ sessionId, path, file });
    for (let i = 0; ; i++) {
      summary = await host.summary({ sessionId });
      if (summary.analysis.state !== 'running' && summary.analysis.state !== 'pending') break;
      if (i > 3000) throw new Error('analysis never settled');
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    if (saved === undefined) delete process.env.HEAPSCOPE_MEMORY_LIMIT;
    else process.env.HEAPSCOPE_MEMORY_LIMIT = saved;
  }
  const phases = new Set(events.filter((e) => e.name === 'load-progress' && (e.payload as { stage: string }).stage === 'analysis').map((e) => (e.payload as { phase: string }).phase));
  return { host, sessionId, summary, phases };
}

/** What a user sees in the views that read the analysis, as plain data. */
async function views(plan: Plan, path: string) {
  const { host, sessionId, summary, phases } = await openIn(plan, path);
  expect(summary.analysis.state).toBe('done');
  expect(phases.has('types'), `${plan}: the per-type phase reported`).toBe(plan === 'low');
  const out: Record<string, unknown> = {};
  out.summary = { ...summary, parseMs: 0, analysis: { ...summary.analysis, ms: 0 } };
  out.types = await host.typeRows({ sessionId, sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 40 });
  const top = await host.dominatorChildren({ sessionId, node: null, start: 0, end: 60 });
  out.top = top;
  const nodes: number[] = [];
  for (const row of top.rows.slice(0, 8)) {
    const kids = await host.dominatorChildren({ sessionId, node: row.node, start: 0, end: 30 });
    out[`children ${row.node}`] = kids;
    nodes.push(row.node, ...kids.rows.slice(0, 4).map((k) => k.node));
  }
  for (let v = 0; v < summary.nodeCount; v += Math.max(1, Math.floor(summary.nodeCount / 25))) nodes.push(v);
  for (const node of nodes) {
    out[`info ${node}`] = await host.objectInfo({ sessionId, node });
    out[`path ${node}`] = await host.dominatorPath({ sessionId, node });
    out[`incoming ${node}`] = await host.references({ sessionId, node, direction: 'incoming', start: 0, end: 20 });
  }
  for (const node of nodes.slice(0, 12)) out[`paths ${node}`] = await host.pathsToRoots({ sessionId, target: { kind: 'object', node } });
  const groups = await host.dominatorTypeGroups({ sessionId, start: 0, end: 40 });
  out.groups = groups;
  for (const g of groups.rows.slice(0, 3)) out[`retainedBy ${g.typeIndex}`] = await host.retainedBy({ sessionId, typeIndex: g.typeIndex });
  out.inspections = await host.inspections({ sessionId, top: 5 });
  await host.close({ sessionId });
  return out;
}

describe('the app’s low-memory plan gives every view the fast plan’s answers', () => {
  it('on a synthetic .NET-like heap', async () => {
    const low = await views('low', synthetic);
    const fast = await views('fast', synthetic);
    expect(Object.keys(low).length).toBeGreaterThan(100);
    for (const key of Object.keys(fast)) expect(low[key], key).toEqual(fast[key]);
  }, 120_000);

  it('leaves the retainer index to the first call that reads it, built in a child while the worker answers other calls', async () => {
    const { host, sessionId } = await openIn('low', synthetic);
    const keys = async () => Object.keys((await host.stats()).resident).filter((k) => k.startsWith('retainers.'));
    expect(await keys()).toEqual([]);
    await host.dominatorChildren({ sessionId, node: null, start: 0, end: 10 }); // the tree needs no index
    expect(await keys()).toEqual([]);
    const order: string[] = [];
    const info = host.objectInfo({ sessionId, node: 5 }).then((r) => (order.push('info'), r));
    // one macrotask later: an index built on this thread would be done by then, one in a child not
    await new Promise((r) => setTimeout(r, 0));
    const types = host.typeRows({ sessionId, sort: { key: 'count', dir: 'desc' }, start: 0, end: 5 }).then(() => order.push('types'));
    await Promise.all([info, types]);
    expect(order).toEqual(['types', 'info']);
    expect(await keys()).toEqual(['retainers.firstRetainer', 'retainers.retainerNode']);
    const { host: fastHost } = await openIn('fast', synthetic);
    expect(await info).toEqual(await fastHost.objectInfo({ sessionId, node: 5 }));
    await host.close({ sessionId });
    await fastHost.close({ sessionId });
  }, 120_000);

  it.skipIf(!fixturePath('gcdump/perfview_test2.gcdump'))(`on a real dump (${fixturePath('gcdump') ? 'perfview_test2' : NO_FIXTURES})`, async () => {
    const path = fixturePath('gcdump/perfview_test2.gcdump')!;
    const low = await views('low', path);
    const fast = await views('fast', path);
    for (const key of Object.keys(fast)) expect(low[key], key).toEqual(fast[key]);
  }, 120_000);
});
