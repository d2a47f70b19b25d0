import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { findDumpHelper, liveHelpers } from '../../electron/dump-reader/helper-process.js';
import '../../electron/dump-reader/register-dump-reader.js';
import { FileByteSource } from '../../electron/files/file-byte-source.js';
import { FileRegistry } from '../../electron/host/file-registry.js';
import { SessionManager } from '../../electron/host/session-manager.js';
import { devWorkerScripts } from '../../electron/workers/worker-scripts.js';
import { analyzeGraph } from '../../shared/analysis/analyze.js';
import '../../shared/formats/all-readers.js';
import { dumpRecordsToGraph } from '../../shared/formats/dump/dump-graph.js';
import { decodeDumpStream } from '../../shared/formats/dump/dump-stream.js';
import { readSnapshot } from '../../shared/formats/read-snapshot.js';
import { MemoryByteSource } from '../../shared/util/byte-source.js';
import { edgeFieldNameOf, NODE_PSEUDO, NODE_UNDEFINED, NONE, type HeapGraph } from '../../shared/graph/heap-graph.js';
import { captureIo } from '../helpers/capture-io.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../helpers/dotnet-app.js';
import { peerMissing, peerTool } from '../helpers/peer-tools.js';

/**
 * Process dumps end to end: LeakyApp (1,000 LeakyPage objects held by a static event) dumped by
 * the peer tool dotnet-dump, read by Heapscope through the ClrMD helper, and checked against
 * SOS (`dumpheap -stat`, the same DAC's view) and against a .gcdump of the same process.
 */
const helper = findDumpHelper();
const GCORE = ['/usr/bin/gcore', '/usr/local/bin/gcore'].find((p) => existsSync(p)) ?? null;
const dotnetDump = peerTool('dotnet-dump');
const skip = !HAS_DOTNET ? DOTNET_MISSING : !helper ? 'the dump reader is not built (npm run build:dump-reader): dump tests skipped' : !dotnetDump ? peerMissing('dotnet-dump') : null;

async function open(path: string): Promise<HeapGraph> {
  const source = await FileByteSource.open(path);
  try {
    return await readSnapshot(source);
  } finally {
    await source.close();
  }
}

function isObject(g: HeapGraph, n: number): boolean {
  return (g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0;
}

describe.skipIf(skip !== null)(`process dumps through the ClrMD helper (${skip ?? 'dotnet, helper and dotnet-dump found'})`, () => {
  let app: RunningApp;
  let dir: string;
  let dump: string;
  let gcdump: string;
  let g: HeapGraph;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-dump-'));
    app = await startDotnetApp(buildDotnetApp('LeakyApp'));
    dump = join(dir, 'leaky.dmp');
    execFileSync(dotnetDump!, ['collect', '-p', String(app.pid), '--type', 'Heap', '-o', dump], { stdio: 'pipe', timeout: 120_000 });
    // The .gcdump after the dump: its heap walk runs a GC, the dump must see the heap untouched.
    gcdump = join(dir, 'leaky.gcdump');
    const c = captureIo();
    expect(await runCli(['collect', '-p', String(app.pid), '-o', gcdump], c.io)).toBe(0);
    g = await open(dump);
  }, 300_000);
  afterAll(async () => {
    // After a dotnet-dump collect, Node may never get the app's exit event (its stop() then waits
    // forever although the process is gone): stop with a bound, then make sure by pid.
    if (app) await Promise.race([app.stop(), new Promise((r) => setTimeout(r, 15_000))]);
    try {
      if (app) process.kill(app.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the dump: 1,000 LeakyPage objects, runtime info in the metadata, no helper left running', async () => {
    expect(g.metadata.format).toBe('dump');
    expect(g.metadata.pointerSize).toBe(8);
    expect(g.metadata.processId).toBe(app.pid);
    expect(String(g.metadata.extra.clrVersion)).toMatch(/^10\.0\.\d+$/);
    expect(liveHelpers()).toBe(0);
    const r = captureIo();
    expect(await runCli(['report', dump, '--format', 'json'], r.io)).toBe(0);
    const rows = JSON.parse(r.out) as { type: string; count: number; shallowSize: number; unreachableCount: number }[];
    const page = rows.find((x) => x.type === 'HeapscopeTest.LeakyPage')!;
    expect(page.count).toBe(1000);
    expect(page.unreachableCount).toBe(0);
    expect(page.shallowSize).toBe(32_000);
    const info = captureIo();
    expect(await runCli(['info', dump], info.io)).toBe(0);
    expect(info.out).toMatch(/format\s+dump/);
    expect(info.out).toMatch(/\[static vars\]\s+\d+/);
    expect(info.out).toMatch(/clrVersion\s+10\.0\.\d+/);
  }, 120_000);

  it('every type has the count and bytes SOS `dumpheap -stat` gives (all objects on the heap, live and dead; Free blocks excluded)', () => {
    const sos = execFileSync(dotnetDump!, ['analyze', dump, '-c', 'dumpheap -stat', '-c', 'exit'], { encoding: 'utf8', timeout: 120_000 });
    const expected = new Map<string, { count: number; bytes: number }>();
    let total = { count: 0, bytes: 0 };
    for (const line of sos.split('\n')) {
      const m = /^\s*[0-9a-f]+\s+([\d,]+)\s+([\d,]+)\s+(.+?)\s*$/.exec(line);
      if (m && m[3] !== 'Free') expected.set(m[3], { count: Number(m[1].replace(/,/g, '')), bytes: Number(m[2].replace(/,/g, '')) });
      const t = /^Total ([\d,]+) objects, ([\d,]+) bytes/.exec(line);
      if (t) total = { count: Number(t[1].replace(/,/g, '')), bytes: Number(t[2].replace(/,/g, '')) };
    }
    const free = expected.size > 0 ? /^\s*[0-9a-f]+\s+([\d,]+)\s+([\d,]+)\s+Free\s*$/m.exec(sos) : null;
    const got = new Map<string, { count: number; bytes: number }>();
    let objects = 0;
    let bytes = 0;
    for (let n = 0; n < g.nodeCount; n++) {
      if (!isObject(g, n)) continue;
      const name = g.types.names[g.nodeType[n]];
      const row = got.get(name) ?? { count: 0, bytes: 0 };
      row.count++;
      row.bytes += g.selfSize[n];
      got.set(name, row);
      objects++;
      bytes += g.selfSize[n];
    }
    expect(got).toEqual(expected);
    const freeCount = free ? Number(free[1].replace(/,/g, '')) : 0;
    const freeBytes = free ? Number(free[2].replace(/,/g, '')) : 0;
    expect({ objects, bytes }).toEqual({ objects: total.count - freeCount, bytes: total.bytes - freeBytes });
  }, 120_000);

  it('names the field of every reference on the path from the static event to a LeakyPage', () => {
    // Breadth-first from the root over strong edges (an Int32Array of parents: no object per node).
    const parentEdge = new Int32Array(g.nodeCount).fill(-1);
    const seen = new Uint8Array(g.nodeCount);
    const queue = new Uint32Array(g.nodeCount);
    let head = 0;
    let tail = 0;
    queue[tail++] = g.rootIndex;
    seen[g.rootIndex] = 1;
    let page = NONE;
    while (head < tail && page === NONE) {
      const n = queue[head++];
      for (let e = g.firstEdge[n]; e < g.firstEdge[n + 1]; e++) {
        const t = g.edgeTarget[e];
        if (seen[t]) continue;
        seen[t] = 1;
        parentEdge[t] = e;
        queue[tail++] = t;
        if (g.types.names[g.nodeType[t]] === 'HeapscopeTest.LeakyPage') page = t;
      }
    }
    expect(page).not.toBe(NONE);
    const steps: string[] = [];
    for (let n = page; n !== g.rootIndex; ) {
      const e = parentEdge[n];
      let from = 0;
      while (g.firstEdge[from + 1] <= e) from++;
      steps.unshift(`${g.types.names[g.nodeType[from]]} -${edgeFieldNameOf(g, e) ?? '[]'}-> ${g.types.names[g.nodeType[n]]}`);
      n = from;
    }
    expect(steps).toEqual([
      '[.NET Roots] -[]-> [static vars]',
      '[static vars] -[]-> [static var HeapscopeTest.AppEvents.Bus]',
      '[static var HeapscopeTest.AppEvents.Bus] -[]-> HeapscopeTest.MessageBus',
      'HeapscopeTest.MessageBus -Changed-> System.EventHandler',
      'System.EventHandler -_invocationList-> System.Object[]',
      'System.Object[] -[]-> System.EventHandler',
      'System.EventHandler -_target-> HeapscopeTest.LeakyPage',
    ]);
  });

  // The app's data types (not HeapscopeTest.Program+<>c, the compiler's lambda cache: the dump
  // reaches it through its static field <>9, the .gcdump's heap walk reports no root for it).
  const APP_TYPES = ['HeapscopeTest.LeakyPage', 'HeapscopeTest.MessageBus', 'HeapscopeTest.LargeBlob', 'HeapscopeTest.LargeBlob[]', 'System.EventHandler'];

  it('thread statics are roots per type and field: Thread.t_currentThread holds Thread objects', () => {
    let holder = -1;
    for (let n = 0; n < g.nodeCount && holder < 0; n++) if (g.types.names[g.nodeType[n]] === '[static var System.Threading.Thread.t_currentThread]') holder = n;
    expect(holder).toBeGreaterThan(0);
    const held = new Set<string>();
    for (let e = g.firstEdge[holder]; e < g.firstEdge[holder + 1]; e++) held.add(g.types.names[g.nodeType[g.edgeTarget[e]]]);
    // How many threads have touched Thread.CurrentThread depends on the runtime's own threads.
    expect([...held]).toEqual(['System.Threading.Thread']);
  });

  it('`heapscope paths --address` names the holding field of each step (JSON `field`, text column Field)', async () => {
    let page = -1;
    for (let n = 0; n < g.nodeCount && page < 0; n++) if (g.types.names[g.nodeType[n]] === 'HeapscopeTest.LeakyPage') page = n;
    const address = '0x' + g.address[page].toString(16);
    const j = captureIo();
    expect(await runCli(['paths', dump, '--address', address, '--format', 'json'], j.io)).toBe(0);
    const doc = JSON.parse(j.out) as { paths: { steps: { typeName: string; field?: string }[] }[] };
    expect(doc.paths[0].steps.map((s) => (s.field ? `${s.field}: ${s.typeName}` : s.typeName))).toEqual([
      '[.NET Roots]',
      '[static vars]',
      '[static var HeapscopeTest.AppEvents.Bus]',
      'HeapscopeTest.MessageBus',
      'Changed: System.EventHandler',
      '_invocationList: System.Object[]',
      'System.EventHandler',
      '_target: HeapscopeTest.LeakyPage',
    ]);
    const t = captureIo();
    expect(await runCli(['paths', dump, '--address', address], t.io)).toBe(0);
    expect(t.out).toMatch(/Field/);
    expect(t.out).toMatch(/_invocationList/);
  }, 120_000);

  it('reachable counts of the app\'s types equal those of a .gcdump of the same process', async () => {
    const other = await open(gcdump);
    const reachable = (graph: HeapGraph): Map<string, number> => {
      const a = analyzeGraph(graph);
      const m = new Map<string, number>();
      for (let n = 0; n < graph.nodeCount; n++) {
        const name = graph.types.names[graph.nodeType[n]].replace(/ \(Bytes > [^)]*\)$/, '');
        if (!isObject(graph, n) || !a.reachable[n] || !APP_TYPES.includes(name)) continue;
        m.set(name, (m.get(name) ?? 0) + 1);
      }
      return m;
    };
    const fromDump = reachable(g);
    expect(fromDump.get('HeapscopeTest.LeakyPage')).toBe(1000);
    expect(fromDump.get('HeapscopeTest.LargeBlob')).toBe(5);
    expect(fromDump).toEqual(reachable(other));
  }, 120_000);

  it('every reference resolves to the node a naive address map gives (dump-graph\'s neighbour-first search on a real heap)', async () => {
    const out = spawnSync(helper!.endsWith('.dll') ? 'dotnet' : helper!, helper!.endsWith('.dll') ? [helper!, dump] : [dump], { maxBuffer: 1 << 30, timeout: 120_000 });
    const r = await decodeDumpStream(new MemoryByteSource(new Uint8Array(out.stdout), 'leaky.dmp'));
    const g2 = dumpRecordsToGraph(r);
    const byAddress = new Map<number, number>();
    for (let i = 0; i < r.objectCount; i++) byAddress.set(r.objectAddress[2 * i + 1] * 2 ** 32 + r.objectAddress[2 * i], i);
    let compared = 0;
    for (let i = 0; i < r.objectCount; i++) {
      const expected: number[] = [];
      for (let j = i === 0 ? 0 : r.referenceEnd[i - 1]; j < r.referenceEnd[i]; j++) {
        const t = byAddress.get(r.referenceTarget[2 * j + 1] * 2 ** 32 + r.referenceTarget[2 * j]);
        if (t !== undefined) expected.push(t);
      }
      const got = Array.from(g2.edgeTarget.subarray(g2.firstEdge[i], g2.firstEdge[i] + expected.length));
      expect(got).toEqual(expected);
      compared += expected.length;
    }
    expect(compared).toBeGreaterThan(1000); // LeakyApp: ~3,500 references between objects
    expect(g2.edgeTarget).toEqual(g.edgeTarget);
  }, 120_000);

  it('a truncated dump and a cut-off header are dump/corrupt (exit 3)', async () => {
    const bytes = readFileSync(dump);
    const cut = join(dir, 'cut.dmp');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 3)));
    const head = join(dir, 'head.dmp');
    writeFileSync(head, bytes.subarray(0, 4096));
    for (const f of [cut, head]) {
      const c = captureIo();
      expect(await runCli(['info', f], c.io)).toBe(3);
      expect(c.err).toMatch(/^error dump\/corrupt: /);
    }
    expect(liveHelpers()).toBe(0);
  }, 120_000);

  it('the app opens the dump in a snapshot worker (the worker registers the dump reader)', async () => {
    const files = new FileRegistry();
    const mgr = new SessionManager({ scripts: devWorkerScripts(), poolSize: 1, emit: () => {} });
    try {
      const file = await files.register(dump, 'path');
      const id = mgr.open(file, dump).sessionId;
      const summary = await mgr.summary(id);
      expect(summary.nodeCount).toBe(g.nodeCount);
      const rows = await mgr.query('typeRows', { sessionId: id, sort: { key: 'count', dir: 'desc' }, start: 0, end: 3 });
      expect(rows.rows.map((r) => [r.type, r.count])).toContainEqual(['HeapscopeTest.LeakyPage', 1000]);
    } finally {
      await mgr.dispose();
    }
  }, 120_000);

  it('a dump whose runtime is not installed here is dump/dac-missing naming the DAC file', async (ctx) => {
    // The same dump as if taken on another machine: the runtime directory it names does not exist
    // here (same-length path edit, so every offset in the dump stays valid).
    const bytes = readFileSync(dump);
    const from = Buffer.from('/usr/share/dotnet/shared/Microsoft.NETCore.App/');
    if (bytes.indexOf(from) < 0) ctx.skip(); // a runtime installed elsewhere than /usr/share/dotnet: visible skip
    const moved = join(dir, 'moved.dmp');
    const to = Buffer.from('/usr/share/dotnex/shared/Microsoft.NETCore.App/');
    for (let at = bytes.indexOf(from); at >= 0; at = bytes.indexOf(from, at + 1)) to.copy(bytes, at);
    // ... and of a runtime version not installed here (digits of the version directory → 9): the same
    // version installed here would be loaded instead (DacChoice's installed-runtime fallback).
    const version = /^[0-9][0-9A-Za-z.-]*\//.exec(bytes.subarray(bytes.indexOf(to) + to.length, bytes.indexOf(to) + to.length + 64).toString('latin1'))![0];
    const versioned = Buffer.concat([to, Buffer.from(version)]);
    const other = Buffer.concat([to, Buffer.from(version.replace(/[0-9]/g, '9'))]);
    for (let at = bytes.indexOf(versioned); at >= 0; at = bytes.indexOf(versioned, at + 1)) other.copy(bytes, at);
    writeFileSync(moved, bytes);
    const e = await open(moved).then(
      () => null,
      (x: unknown) => x as { code?: string; detail?: { file?: string }; message?: string },
    );
    expect(e?.code).toBe('dump/dac-missing');
    expect(e?.detail?.file).toBe('libmscordaccore.so');
    expect(e?.message).toContain('/usr/share/dotnex/shared/Microsoft.NETCore.App/');
    expect(liveHelpers()).toBe(0);
  }, 120_000);

  it.skipIf(!GCORE)(`a core dump of a process without .NET is dump/no-clr (${GCORE ? 'gcore found' : 'gcore (gdb) not installed: skipped'})`, async () => {
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const prefix = join(dir, 'native');
      execFileSync(GCORE!, ['-o', prefix, String(sleeper.pid)], { stdio: 'pipe', timeout: 60_000 });
      const c = captureIo();
      expect(await runCli(['info', `${prefix}.${sleeper.pid}`], c.io)).toBe(3);
      expect(c.err).toMatch(/^error dump\/no-clr: native\.\d+ is a dump of a process without the \.NET runtime/);
    } finally {
      sleeper.kill('SIGKILL');
    }
  }, 120_000);
});
