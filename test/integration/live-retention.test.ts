import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { analyzeDominance, type DominanceAnalysis } from '../../shared/analysis/analyze.js';
import { snapshotWarnings } from '../../shared/analysis/snapshot-warnings.js';
import '../../shared/formats/all-readers.js';
import { readSnapshot } from '../../shared/formats/read-snapshot.js';
import { isHeapObject, NODE_PSEUDO, NODE_WEAK_EDGES, NONE, type HeapGraph } from '../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../shared/util/byte-source.js';
import { captureIo } from '../helpers/capture-io.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../helpers/dotnet-app.js';
import { peerMissing, peerTool } from '../helpers/peer-tools.js';

/**
 * Weak and dependent handles on a real CoreCLR heap (issue 13 items 1 and 6). RetentionApp
 * (test/dotnet/RetentionApp) keeps 100 Tracked objects in a List and also holds each through a
 * WeakReference<Tracked>; 50 WeakOnly objects only through WeakReferences (so the capture's GC
 * collects them); 20 ConditionalWeakTable pairs of which 10 keys are kept (so 10 CwtValues live,
 * each alive only through its key); and 3 disposed Clocks still held by their Timer's callback.
 * One `heapscope collect` writes the .gcdump and keeps the raw trace: both must give the same
 * per-type retained sizes and the same dominator rows, and the numbers the program guarantees.
 */
const NS = 'HeapscopeRetention.';

async function load(path: string): Promise<HeapGraph> {
  return readSnapshot(new MemoryByteSource(new Uint8Array(readFileSync(path)), path));
}

function nodesOf(g: HeapGraph, type: string): number[] {
  const out: number[] = [];
  for (let n = 0; n < g.nodeCount; n++) if (g.types.names[g.nodeType[n]] === type && isHeapObject(g, n)) out.push(n);
  return out;
}

function typeName(g: HeapGraph, n: number): string {
  return g.types.names[g.nodeType[n]];
}

function refs(g: HeapGraph, n: number): number[] {
  return Array.from(g.edgeTarget.subarray(g.firstEdge[n], g.firstEdge[n + 1]));
}

/** The only reference of `n` to an object of type `type` (throws when there is not exactly one). */
function refOfType(g: HeapGraph, n: number, type: string): number {
  const hits = refs(g, n).filter((t) => typeName(g, t) === type);
  if (hits.length !== 1) throw new Error(`${typeName(g, n)} has ${hits.length} references to ${type}`);
  return hits[0];
}

/** Per type name: reachable instances and retained bytes (each object counted once). */
function perType(g: HeapGraph, a: DominanceAnalysis): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  for (let t = 0; t < g.types.count; t++) {
    const k = g.types.names[t];
    const [c, r] = out[k] ?? [0, 0];
    out[k] = [c + a.typeReachableCount[t], r + a.typeRetained[t]];
  }
  return out;
}

/** The category pseudo-node named `name` (exactly one). */
function category(g: HeapGraph, name: string): number {
  const hits: number[] = [];
  for (let n = 0; n < g.nodeCount; n++) if (typeName(g, n) === name && g.nodeFlags[n] & NODE_PSEUDO) hits.push(n);
  expect(hits).toHaveLength(1);
  return hits[0];
}

/** The known answers of RetentionApp, on one graph read from the trace or from the .gcdump. */
function expectKnownAnswers(g: HeapGraph, a: DominanceAnalysis): void {
  const count = (t: string) => nodesOf(g, NS + t).length;
  expect([count('Tracked'), count('WeakOnly'), count('CwtKey'), count('CwtValue'), count('Clock')]).toEqual([100, 0, 10, 10, 3]);
  expect(nodesOf(g, 'System.WeakReference<HeapscopeRetention.Tracked>')).toHaveLength(100);
  expect(nodesOf(g, 'System.WeakReference')).toHaveLength(50); // their 50 WeakOnly targets were collected

  // Weakly held too, the Tracked objects are retained by the Registry's array, not by the roots.
  const weak = category(g, '[weak Handles]');
  expect(g.nodeFlags[weak]).toBe(NODE_PSEUDO | NODE_WEAK_EDGES);
  const tracked = nodesOf(g, NS + 'Tracked');
  expect(refs(g, weak).filter((t) => typeName(g, t) === NS + 'Tracked')).toHaveLength(100);
  const [array] = nodesOf(g, NS + 'Tracked[] (Bytes > 1K)');
  let trackedRetained = 0;
  for (const n of tracked) {
    expect(a.idom[n]).toBe(array);
    expect(a.retainedSize[n]).toBe(g.selfSize[n] + g.selfSize[refOfType(g, n, 'System.Byte[]')]);
    trackedRetained += a.retainedSize[n];
  }
  expect(a.retainedSize[array]).toBe(g.selfSize[array] + trackedRetained);

  // Each live CwtValue is retained by its key (a reference key → value), and is no root.
  expect(refs(g, category(g, '[Dependent Handles]'))).toEqual([]);
  for (const key of nodesOf(g, NS + 'CwtKey')) {
    const value = refOfType(g, key, NS + 'CwtValue');
    expect(a.idom[value]).toBe(key);
    expect(a.retainedSize[key]).toBe(g.selfSize[key] + g.selfSize[value] + g.selfSize[refOfType(g, value, 'System.Byte[]')]);
  }

  // The disposed Clocks: alive through TimerQueueTimer → TimerCallback, each retaining its state,
  // its Timer and the Timer's TimerHolder (the TimerQueueTimer stays in the runtime's queue).
  for (const clock of nodesOf(g, NS + 'Clock')) {
    expect(a.reachable[clock]).toBe(1);
    const callback = a.idom[clock];
    expect(callback).not.toBe(NONE);
    expect(typeName(g, callback)).toBe('System.Threading.TimerCallback');
    expect(typeName(g, a.idom[callback])).toBe('System.Threading.TimerQueueTimer');
    const timer = refOfType(g, clock, 'System.Threading.Timer');
    const holder = refOfType(g, timer, 'System.Threading.TimerHolder');
    expect(a.retainedSize[clock]).toBe(g.selfSize[clock] + g.selfSize[refOfType(g, clock, 'System.Byte[]')] + g.selfSize[timer] + g.selfSize[holder]);
  }
}

describe.skipIf(!HAS_DOTNET)(`weak and dependent handles in a live capture (${HAS_DOTNET ? 'dotnet found' : DOTNET_MISSING})`, () => {
  let app: RunningApp;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-retention-'));
    app = await startDotnetApp(buildDotnetApp('RetentionApp'));
  }, 300_000);
  afterAll(async () => {
    await app?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the .gcdump collect writes and the trace of the same capture give the same retained sizes, dominators and known answers', async () => {
    const dump = join(dir, 'retention.gcdump');
    const trace = join(dir, 'retention.nettrace');
    const c = captureIo();
    expect(await runCli(['collect', '-p', String(app.pid), '-o', dump, '--trace-out', trace], c.io)).toBe(0);
    const fromDump = await load(dump);
    const fromTrace = await load(trace);
    expect([fromDump.metadata.format, fromTrace.metadata.format]).toEqual(['gcdump', 'nettrace']);
    const a = analyzeDominance(fromDump);
    const b = analyzeDominance(fromTrace);
    expect(perType(fromDump, a)).toEqual(perType(fromTrace, b));
    expectKnownAnswers(fromTrace, b);
    expectKnownAnswers(fromDump, a);

    const rows = async (file: string) => {
      const io = captureIo();
      expect(await runCli(['dominators', file, '--format', 'json', '--top', '100000', '--depth', '100000'], io.io)).toBe(0);
      return JSON.parse(io.out) as { node: number; retainedSize: number }[];
    };
    // Paths to roots never go through a weak handle: the Tracked objects' path is the Registry.
    const paths = captureIo();
    expect(await runCli(['paths', dump, '--type', NS + 'Tracked', '--format', 'json'], paths.io)).toBe(0);
    interface PathNode { typeName: string; count: number; children: PathNode[] }
    const tree = JSON.parse(paths.out) as { instances: number; reachable: number; tree: PathNode[] };
    expect([tree.instances, tree.reachable]).toEqual([100, 100]);
    const chain: string[] = [];
    for (let level = tree.tree; level.length > 0; level = level[0].children) {
      expect(level.map((n) => n.count)).toEqual([100]);
      chain.push(level[0].typeName);
    }
    expect(chain).toEqual([
      NS + 'Tracked',
      NS + 'Tracked[] (Bytes > 1K)',
      'System.Collections.Generic.List<HeapscopeRetention.Tracked>',
      '[static var System.Collections.Generic.List<HeapscopeRetention.Tracked>.Registry]',
      '[static vars]',
      '[.NET Roots]',
    ]);

    const dumpRows = await rows(dump);
    expect(dumpRows).toHaveLength(a.reachableCount);
    expect(dumpRows).toEqual(await rows(trace));
  }, 180_000);

  it.skipIf(!peerTool('dotnet-gcdump'))(`dotnet-gcdump's capture of the same process has the same instances, but CWT values as roots and no weak handles${peerTool('dotnet-gcdump') ? '' : ` (${peerMissing('dotnet-gcdump')})`}`, async () => {
    const ours = join(dir, 'ours.gcdump');
    const peer = join(dir, 'peer.gcdump');
    expect(await runCli(['collect', '-p', String(app.pid), '-o', ours], captureIo().io)).toBe(0);
    execFileSync(peerTool('dotnet-gcdump')!, ['collect', '-p', String(app.pid), '-o', peer], { stdio: 'pipe', timeout: 120_000 });
    const g = await load(ours);
    const p = await load(peer);
    expect(p.metadata.creationTool).toBe('dotnet-gcdump');
    const counts = (x: HeapGraph) => {
      const out: Record<string, number> = {};
      for (let n = 0; n < x.nodeCount; n++) if (isHeapObject(x, n) && typeName(x, n).startsWith(NS)) out[typeName(x, n)] = (out[typeName(x, n)] ?? 0) + 1;
      return out;
    };
    expect(counts(p)).toEqual(counts(g));
    expect(counts(g)).toMatchObject({ [NS + 'Tracked']: 100, [NS + 'CwtKey']: 10, [NS + 'CwtValue']: 10, [NS + 'Clock']: 3 });
    // dotnet-gcdump drops weak handles and lists the CWT values as roots, without their keys.
    expect(p.types.names).not.toContain('[weak Handles]');
    const values = refs(p, category(p, '[Dependent Handles]')).filter((t) => typeName(p, t) === NS + 'CwtValue');
    expect(values).toHaveLength(10);
    expect(snapshotWarnings(p).map((w) => w.code)).toContain('dependent-roots');
    expect(snapshotWarnings(g).map((w) => w.code)).not.toContain('dependent-roots');
    const pa = analyzeDominance(p);
    for (const key of nodesOf(p, NS + 'CwtKey')) expect(pa.retainedSize[key]).toBe(p.selfSize[key]);
  }, 180_000);
});
