import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { collectHeapSnapshot } from '../../electron/diagnostics/heap-collector.js';
import '../../shared/formats/all-readers.js';
import { readSnapshot } from '../../shared/formats/read-snapshot.js';
import { analyzeGraph } from '../../shared/analysis/analyze.js';
import { MemoryByteSource } from '../../shared/util/byte-source.js';
import { NODE_PSEUDO, NODE_UNDEFINED, GEN_FROZEN, GEN_UNKNOWN, type HeapGraph } from '../../shared/graph/heap-graph.js';
import { generationBreakdown } from '../../shared/analysis/generation-breakdown.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../helpers/dotnet-app.js';
import { captureIo } from '../helpers/capture-io.js';

/**
 * Real CoreCLR heaps: LeakyApp (test/dotnet/LeakyApp) keeps exactly 1,000 LeakyPage objects alive
 * through a static event, each holding a 1,024-byte array, plus 5 LargeBlob objects holding
 * 100,000-byte arrays. We capture it with our own diagnostics client and check the numbers the
 * program guarantees.
 */
describe.skipIf(!HAS_DOTNET)(`live capture from a .NET process (${HAS_DOTNET ? 'dotnet found' : DOTNET_MISSING})`, () => {
  let app: RunningApp;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-collect-'));
    app = await startDotnetApp(buildDotnetApp('LeakyApp'));
  }, 300_000);
  afterAll(async () => {
    await app?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = (graph: HeapGraph, name: string) => {
    let n = 0;
    let bytes = 0;
    for (let i = 0; i < graph.nodeCount; i++) {
      if (graph.types.names[graph.nodeType[i]] === name && (graph.nodeFlags[i] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0) {
        n++;
        bytes += graph.selfSize[i];
      }
    }
    return { n, bytes };
  };

  it('collects a complete heap with the exact leaked instances, paths and generations', async () => {
    const phases: string[] = [];
    const r = await collectHeapSnapshot({ pid: app.pid, timeoutSec: 60, onPhase: (p) => void (phases.includes(p) || phases.push(p)) });
    const g = r.graph;
    expect(phases).toEqual(['connecting', 'flushing types', 'walking heap', 'reading rundown', 'building graph']);
    expect(count(g, 'HeapscopeTest.LeakyPage').n).toBe(1000);
    expect(count(g, 'HeapscopeTest.LargeBlob').n).toBe(5);
    expect(count(g, 'HeapscopeTest.MessageBus').n).toBe(1);
    // 1,000 payloads of 1,024 bytes (+ array header) in the > 1K bucket, 5 × 100,000 in > 100K
    expect(count(g, 'System.Byte[] (Bytes > 100K)').n).toBe(5);
    expect(g.metadata.format).toBe('nettrace');
    expect(g.hasGenerationData).toBe(true);

    const a = analyzeGraph(g);
    // Every LeakyPage is reachable, and exactly the 1,000 pages + their payloads hang off the event:
    // the pages' retained sizes add up to 1,000 × (page + its byte[1024]).
    let pagesRetained = 0;
    let pageShallow = -1;
    let payloadSize = -1;
    for (let i = 0; i < g.nodeCount; i++) {
      if (g.types.names[g.nodeType[i]] !== 'HeapscopeTest.LeakyPage') continue;
      expect(a.reachable[i]).toBe(1);
      pagesRetained += a.retainedSize[i];
      pageShallow = g.selfSize[i];
      for (let e = g.firstEdge[i]; e < g.firstEdge[i + 1]; e++) {
        const t = g.edgeTarget[e];
        if (g.types.names[g.nodeType[t]].startsWith('System.Byte[]')) payloadSize = g.selfSize[t];
      }
    }
    expect(payloadSize).toBeGreaterThanOrEqual(1024);
    expect(pagesRetained).toBe(1000 * (pageShallow + payloadSize));

    // generations: the 5 LargeBlob arrays are in the LOH, and most objects have a known generation
    let loh = 0;
    let known = 0;
    let objects = 0;
    for (let i = 0; i < g.nodeCount; i++) {
      if (g.nodeFlags[i] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
      objects++;
      if (g.generation[i] !== GEN_UNKNOWN) known++;
      if (g.types.names[g.nodeType[i]] === 'System.Byte[] (Bytes > 100K)') {
        expect(g.generation[i]).toBe(3);
        loh++;
      }
    }
    expect(loh).toBe(5);
    expect(known / objects).toBeGreaterThan(0.8);

    // .NET 8+ puts string literals, RuntimeType objects and preinitialized statics on frozen
    // (non-GC) segments, for which the runtime sends no GCGenerationRange: they are named
    // "frozen (non-GC heap)", and no object is left without a generation.
    const frozenTypes = new Set<string>();
    let frozen = 0;
    let unknown = 0;
    for (let i = 0; i < g.nodeCount; i++) {
      if (g.nodeFlags[i] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
      if (g.generation[i] === GEN_FROZEN) {
        frozen++;
        frozenTypes.add(g.types.names[g.nodeType[i]]);
      } else if (g.generation[i] === GEN_UNKNOWN) unknown++;
    }
    expect(frozen).toBeGreaterThan(0);
    expect(unknown).toBe(0);
    expect(frozenTypes.has('System.String') && frozenTypes.has('System.RuntimeType')).toBe(true);
    // the app's own objects are all on the GC heap
    for (const name of frozenTypes) expect(name.startsWith('HeapscopeTest.')).toBe(false);
    const frozenRow = generationBreakdown(g).generations!.find((r) => r.name === 'frozen (non-GC heap)')!;
    expect(frozenRow.count).toBe(frozen);
    // those no root reaches are counted apart from garbage
    let frozenUnreached = 0;
    for (let i = 0; i < g.nodeCount; i++) if (g.generation[i] === GEN_FROZEN && !a.reachable[i] && !(g.nodeFlags[i] & (NODE_PSEUDO | NODE_UNDEFINED))) frozenUnreached++;
    expect(a.unreachableFrozenCount).toBe(frozenUnreached);
  }, 120_000);

  it('heapscope collect writes a .gcdump whose merged paths go through the static event', async () => {
    const out = join(dir, 'leaky.gcdump');
    const c = captureIo();
    expect(await runCli(['collect', '-p', String(app.pid), '-o', out], c.io)).toBe(0);
    expect(c.out).toMatch(/^wrote .*leaky\.gcdump: [\d,]+ nodes/);
    expect(statSync(out).size).toBeGreaterThan(10_000);

    const g = await readSnapshot(new MemoryByteSource(new Uint8Array(readFileSync(out))));
    expect(g.metadata.format).toBe('gcdump');
    expect(g.metadata.creationTool).toBe('heapscope');
    expect(g.hasGenerationData).toBe(true); // segments survive in our .gcdump, unlike dotnet-gcdump's

    const p = captureIo();
    expect(await runCli(['paths', out, '--type', 'HeapscopeTest.LeakyPage', '--format', 'json'], p.io)).toBe(0);
    const tree = JSON.parse(p.out) as { instances: number; reachable: number; tree: Node[] };
    interface Node { typeName: string; count: number; children: Node[] }
    expect(tree.instances).toBe(1000);
    expect(tree.reachable).toBe(1000);
    // follow the single merged chain from the instances up to the root
    const chain: string[] = [];
    let level: Node[] = tree.tree;
    while (level.length > 0) {
      const top = level.reduce((x, y) => (y.count > x.count ? y : x));
      expect(top.count).toBe(1000);
      chain.push(top.typeName);
      level = top.children;
    }
    expect(chain[0]).toBe('HeapscopeTest.LeakyPage');
    expect(chain).toContain('System.EventHandler');
    expect(chain).toContain('HeapscopeTest.MessageBus');
    expect(chain.some((n) => /^\[static var .*\.Bus\]$/.test(n))).toBe(true);
    expect(chain.at(-2)).toBe('[static vars]');
  }, 120_000);

  it('reports process/exited when the target dies mid-capture', async () => {
    // A bigger heap (2M extra objects) makes the walk take long enough to kill the process inside it.
    const victim = await startDotnetApp(buildDotnetApp('LeakyApp'), ['--objects', '2000000']);
    const err = await collectHeapSnapshot({
      pid: victim.pid,
      timeoutSec: 60,
      onPhase: (p) => {
        if (p === 'walking heap') victim.child.kill('SIGKILL');
      },
    }).catch((e: unknown) => e);
    await victim.stop();
    expect(err).toMatchObject({ code: 'process/exited' });
  }, 120_000);

  it('fails with coded errors for a missing pid and bad usage', async () => {
    const c = captureIo();
    expect(await runCli(['collect', '-p', String(2 ** 22 + 4321), '-o', join(dir, 'x.gcdump')], c.io)).toBe(3);
    expect(c.err).toMatch(/^error process\/not-found: /);
    const u = captureIo();
    expect(await runCli(['collect'], u.io)).toBe(2);
  });
});
