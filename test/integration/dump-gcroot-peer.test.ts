import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { liveHelpers, readDumpFile } from '../../electron/dump-reader/helper-process.js';
import '../../electron/dump-reader/register-dump-reader.js';
import { FileByteSource } from '../../electron/files/file-byte-source.js';
import '../../shared/formats/all-readers.js';
import { readSnapshot } from '../../shared/formats/read-snapshot.js';
import { NODE_PSEUDO, NODE_UNDEFINED, NODE_WEAK_EDGES, type HeapGraph } from '../../shared/graph/heap-graph.js';
import { captureIo } from '../helpers/capture-io.js';
import { dumpDotnetApp, processDumpSkip } from '../helpers/process-dump.js';
import { peerMissing, peerTool } from '../helpers/peer-tools.js';

/**
 * Peer check of `heapscope paths --address` against SOS `gcroot` (dotnet-dump analyze) on a dump
 * that `heapscope dump` wrote of RetentionApp (test/dotnet/RetentionApp: 3 disposed Clocks kept by
 * their undisposed Timers, a static List of Tracked, ConditionalWeakTable pairs kept by live keys).
 *
 * For a sample of objects:
 * - every root chain gcroot prints (root kind, then object addresses and types) is one of
 *   Heapscope's paths: same root kind (strong/pinned handle ↔ [other roots] › [strong|pinning
 *   Handles], thread ↔ [local vars] › [thread … (OS 0x<id>)]) and the same objects in order;
 * - Heapscope's shortest path is never longer than gcroot's shortest chain, and is that chain or,
 *   where Heapscope roots a static field by name, that chain without its first object: SOS shows
 *   statics through the strong handle to the runtime's static storage (a System.Object[]), which
 *   Heapscope reports as [static vars] › [static var Type.field] one object later.
 * Also: the real helper's PROGRESS records climb to the total of the heap segments walked.
 */
const dotnetDump = peerTool('dotnet-dump');
const skip = processDumpSkip('gcroot peer check') ?? (!dotnetDump ? peerMissing('dotnet-dump') : null);

interface Chain {
  /** 'handle:strong', 'handle:pinned', … or 'thread:<os id hex>'. */
  root: string;
  objects: { address: string; type: string }[];
}

/** Split `dotnet-dump analyze -c "gcroot A" -c "gcroot B" …` output into per-address chains. */
function parseGcroot(out: string, addresses: string[]): Map<string, Chain[]> {
  const result = new Map<string, Chain[]>();
  // Each command's output ends with "Found N unique roots." (or "Found 0 unique roots").
  const blocks = out.split(/Found \d+ unique roots?\.?/).slice(0, addresses.length);
  expect(blocks.length).toBe(addresses.length);
  blocks.forEach((block, i) => {
    const chains: Chain[] = [];
    let root = '';
    let current: Chain | null = null;
    for (const line of block.split('\n')) {
      const thread = /^Thread ([0-9a-f]+):\s*$/.exec(line);
      const handle = /^\s+[0-9a-f]+ \((strong|pinned|async pinned|ref counted|sized ref|dependent) handle\)\s*$/.exec(line);
      const step = /^\s+-> ([0-9a-f]+)\s+(.+?)\s*(?:\(static variable: [^)]*\))?\s*$/.exec(line);
      if (thread) root = `thread:${thread[1]}`;
      else if (handle) {
        root = `handle:${handle[1]}`;
        current = null;
      } else if (step) {
        if (!current) {
          current = { root, objects: [] };
          chains.push(current);
        }
        current.objects.push({ address: step[1], type: step[2] });
      } else if (/^\s+[0-9a-f]+ [0-9a-f]+ /.test(line) || /^\s+\S+: [0-9a-f]+\s*$/.test(line)) {
        current = null; // a stack frame or a frame slot line: a new chain starts
      }
    }
    result.set(addresses[i], chains);
  });
  return result;
}

interface HsPath {
  length: number;
  rootCategory: string;
  rootDetail: string;
  steps: { typeName: string; address: string; pseudo: boolean }[];
}

/** The root kind of a Heapscope path in gcroot's words (null: a root gcroot names differently). */
function hsRoot(p: HsPath): string | null {
  const names = p.steps.filter((s) => s.pseudo).map((s) => s.typeName);
  if (p.rootCategory === '[local vars]') {
    const t = names.map((n) => /\(OS 0x([0-9a-f]+)\)/.exec(n)).find((m) => m);
    return t ? `thread:${t[1]}` : null;
  }
  const handle: Record<string, string> = { '[strong Handles]': 'strong', '[pinning Handles]': 'pinned', '[async pinned Handles]': 'async pinned', '[ref-counted Handles]': 'ref counted', '[sized-ref Handles]': 'sized ref' };
  for (const n of names) if (handle[n]) return `handle:${handle[n]}`;
  return p.rootCategory === '[static vars]' ? 'static' : null;
}

const objectsOf = (p: HsPath) => p.steps.filter((s) => !s.pseudo).map((s) => ({ address: s.address.replace(/^0x/, ''), type: s.typeName }));

describe.skipIf(skip !== null)(`gcroot (SOS) agrees with heapscope paths on a heapscope dump (${skip ?? 'dotnet, helper and dotnet-dump found'})`, () => {
  let dir: string;
  let dump: string;
  let g: HeapGraph;
  beforeAll(async () => {
    ({ dir, dump } = await dumpDotnetApp('RetentionApp', { prefix: 'heapscope-gcroot-', file: 'retention.dmp' }));
    const source = await FileByteSource.open(dump);
    try {
      g = await readSnapshot(source);
    } finally {
      await source.close();
    }
  }, 300_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Addresses (hex, no 0x) of objects of a type, in address order. */
  function instances(type: string): string[] {
    const out: string[] = [];
    for (let n = 0; n < g.nodeCount; n++) {
      if ((g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) !== 0 || g.types.names[g.nodeType[n]] !== type) continue;
      out.push(g.address[n].toString(16));
    }
    return out;
  }

  /** 1 for nodes reachable from the root over strong references (weak-handle roots keep nothing alive). */
  function reachableFromRoots(): Uint8Array {
    const seen = new Uint8Array(g.nodeCount);
    const queue = new Uint32Array(g.nodeCount);
    let head = 0;
    let tail = 0;
    queue[tail++] = g.rootIndex;
    seen[g.rootIndex] = 1;
    while (head < tail) {
      const n = queue[head++];
      if (g.nodeFlags[n] & NODE_WEAK_EDGES) continue;
      for (let e = g.firstEdge[n]; e < g.firstEdge[n + 1]; e++) {
        const t = g.edgeTarget[e];
        if (!seen[t]) {
          seen[t] = 1;
          queue[tail++] = t;
        }
      }
    }
    return seen;
  }

  function nodeAt(hex: string): number {
    for (let n = 0; n < g.nodeCount; n++) if ((g.nodeFlags[n] & NODE_PSEUDO) === 0 && g.address[n] === BigInt('0x' + hex)) return n;
    throw new Error(`no object at ${hex}`);
  }

  it('for Clocks, Tracked, CwtKeys and CwtValues: gcroot chains are Heapscope paths, and Heapscope\'s shortest is no longer (dependent handles: Heapscope only)', async () => {
    const clocks = instances('HeapscopeRetention.Clock');
    const tracked = instances('HeapscopeRetention.Tracked');
    const keys = instances('HeapscopeRetention.CwtKey');
    const values = instances('HeapscopeRetention.CwtValue');
    expect(clocks.length).toBe(3);
    expect(tracked.length).toBe(100);
    // The value a live key keeps through the table's dependent handle (the edge Heapscope adds).
    const keyNode = nodeAt(keys[0]);
    let liveValue = '';
    for (let e = g.firstEdge[keyNode]; e < g.firstEdge[keyNode + 1]; e++) {
      if (g.types.names[g.nodeType[g.edgeTarget[e]]] === 'HeapscopeRetention.CwtValue') liveValue = g.address[g.edgeTarget[e]].toString(16);
    }
    expect(liveValue).not.toBe('');
    // RetentionApp collects before READY: the 10 values whose keys died are gone, the other 10 live.
    const live = reachableFromRoots();
    expect(values.length).toBe(10);
    expect(values.filter((v) => live[nodeAt(v)] === 1).length).toBe(10);
    const sample = [...clocks, tracked[0], tracked[99], keys[0], liveValue];
    const sos = execFileSync(dotnetDump!, ['analyze', dump, ...sample.flatMap((a) => ['-c', `gcroot ${a}`]), '-c', 'exit'], { encoding: 'utf8', timeout: 300_000 });
    const chains = parseGcroot(sos, sample);
    let compared = 0;
    for (const address of sample) {
      const c = captureIo();
      expect(await runCli(['paths', dump, '--address', address, '--max', '100', '--format', 'json'], c.io)).toBe(0);
      const { paths, reachable } = JSON.parse(c.out) as { paths: HsPath[]; reachable: boolean };
      const sosChains = chains.get(address)!;
      const what = `${address} (gcroot: ${JSON.stringify(sosChains)})`;
      if (address === liveValue) {
        // The one known difference: gcroot does not follow dependent handles (a ConditionalWeakTable
        // value lives while its key does); Heapscope does, as the runtime's GC does.
        expect(sosChains, what).toEqual([]);
        expect(reachable, what).toBe(true);
        const last = paths[0].steps.slice(-2) as (HsPath['steps'][number] & { field?: string })[];
        expect(last.map((s) => [s.typeName, s.field ?? null]), what).toEqual([
          ['HeapscopeRetention.CwtKey', null],
          ['HeapscopeRetention.CwtValue', '(dependent handle)'],
        ]);
        expect(objectsOf(paths[0]).slice(0, -1), what).toEqual(chains.get(keys[0])![0].objects.slice(1));
        continue;
      }
      expect(reachable, what).toBe(true);
      expect(sosChains.length, what).toBeGreaterThan(0);
      // Every gcroot chain is one of Heapscope's paths, root kind and objects alike.
      for (const chain of sosChains) {
        expect(chain.objects[chain.objects.length - 1].address, what).toBe(address);
        const match = paths.find((p) => hsRoot(p) === chain.root && JSON.stringify(objectsOf(p)) === JSON.stringify(chain.objects));
        expect(match, `${what}: no Heapscope path for ${JSON.stringify(chain)}; Heapscope: ${JSON.stringify(paths.map((p) => [hsRoot(p), objectsOf(p)]))}`).toBeDefined();
        compared++;
      }
      // Heapscope's shortest path: gcroot's shortest chain, or (a static root) that chain after the static storage array.
      const shortestSos = sosChains.reduce((a, b) => (b.objects.length < a.objects.length ? b : a));
      const shortest = paths[0];
      const hs = objectsOf(shortest);
      expect(hs.length, what).toBeLessThanOrEqual(shortestSos.objects.length);
      if (hsRoot(shortest) === 'static') {
        expect(shortestSos.root, what).toBe('handle:strong');
        expect(shortestSos.objects[0].type, what).toBe('System.Object[]');
        expect(hs, what).toEqual(shortestSos.objects.slice(1));
      } else {
        expect(hsRoot(shortest), what).toBe(shortestSos.root);
        expect(hs, what).toEqual(shortestSos.objects);
      }
    }
    expect(compared).toBeGreaterThanOrEqual(sample.length - 1);
  }, 300_000);

  it('the real helper reports its heap walk: PROGRESS climbs to the total of segment bytes, which covers every object', async () => {
    const calls: [number, number][] = [];
    const graph = await readDumpFile(dump, 'retention.dmp', { progress: (_p, d, t) => calls.push([d, t]) });
    expect(liveHelpers()).toBe(0);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    const total = calls[0][1];
    expect(calls.every(([, t]) => t === total)).toBe(true);
    for (let i = 1; i < calls.length; i++) expect(calls[i][0]).toBeGreaterThanOrEqual(calls[i - 1][0]);
    expect(calls[calls.length - 1]).toEqual([total, total]);
    let bytes = 0;
    for (let n = 0; n < graph.nodeCount; n++) if ((graph.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0) bytes += graph.selfSize[n];
    expect(total).toBeGreaterThanOrEqual(bytes);
    // Never more than 101 steps for ~1% each, plus the last.
    expect(calls.length).toBeLessThanOrEqual(102);
    expect(readFileSync(dump).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  }, 120_000);
});
