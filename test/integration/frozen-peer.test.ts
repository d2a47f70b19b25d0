import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectHeapSnapshot } from '../../electron/diagnostics/heap-collector.js';
import '../../shared/formats/all-readers.js';
import { GEN_FROZEN, NODE_PSEUDO, NODE_UNDEFINED } from '../../shared/graph/heap-graph.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../helpers/dotnet-app.js';
import { peerMissing, peerTool } from '../helpers/peer-tools.js';

/**
 * Frozen (non-GC heap) objects checked against the runtime's own debugger view: SOS in
 * dotnet-dump lists the "NonGC heap" segments (`eeheap -gc`) and the objects on them
 * (`dumpheap -stat BEGIN END`). The objects we call "frozen (non-GC heap)" in a live capture of
 * the same idle process must be exactly those: same count, same bytes, same types. The dump
 * (about 90 MB) lives in a temporary directory removed afterwards.
 *
 * A capture runs managed code in the target (EventSource, rundown), which adds literals and
 * RuntimeType objects to the frozen heap; so one capture warms up first, then the dump, then the
 * capture that is compared.
 */
const run = promisify(execFile);
const DUMP = peerTool('dotnet-dump');
const skip = !HAS_DOTNET ? DOTNET_MISSING : !DUMP ? peerMissing('dotnet-dump') : '';

/** [begin, allocated) of every segment listed under "NonGC heap" by `eeheap -gc`. */
function nonGcSegments(eeheap: string): [bigint, bigint][] {
  const out: [bigint, bigint][] = [];
  let inNonGc = false;
  for (const line of eeheap.split('\n')) {
    if (/^\S/.test(line)) inNonGc = line.trim() === 'NonGC heap';
    if (!inNonGc) continue;
    const m = /^\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+0x/.exec(line);
    if (m) out.push([BigInt('0x' + m[2]), BigInt('0x' + m[3])]);
  }
  return out;
}

/** `dumpheap -stat` rows: class name → [count, bytes]. */
function dumpheapStat(text: string): Map<string, [number, number]> {
  const rows = new Map<string, [number, number]>();
  for (const line of text.split('\n')) {
    const m = /^\s*[0-9a-f]+\s+([\d,]+)\s+([\d,]+)\s+(.+?)\s*$/.exec(line);
    if (!m) continue;
    const [count, bytes] = [Number(m[1].replace(/,/g, '')), Number(m[2].replace(/,/g, ''))];
    const prev = rows.get(m[3]) ?? [0, 0];
    rows.set(m[3], [prev[0] + count, prev[1] + bytes]);
  }
  return rows;
}

describe.skipIf(skip !== '')(`frozen (non-GC heap) objects vs SOS (dotnet-dump)${skip ? ` (${skip})` : ''}`, () => {
  let app: RunningApp;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-frozen-'));
    app = await startDotnetApp(buildDotnetApp('LeakyApp'));
  }, 300_000);
  afterAll(async () => {
    // after a dump the child's exit is not always reported to us: do not wait for it forever
    await Promise.race([app?.stop(), new Promise((r) => setTimeout(r, 5000))]);
    if (app && app.child.exitCode === null) app.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('are exactly the objects SOS lists on the NonGC heap', async () => {
    await collectHeapSnapshot({ pid: app.pid, timeoutSec: 60 }); // warm-up
    const dump = join(dir, 'leaky.dmp');
    await run(DUMP!, ['collect', '-p', String(app.pid), '--type', 'Heap', '-o', dump]);
    const { graph: g } = await collectHeapSnapshot({ pid: app.pid, timeoutSec: 60 });
    const sos = async (...commands: string[]) => (await run(DUMP!, ['analyze', dump, ...commands.flatMap((c) => ['-c', c]), '-c', 'exit'], { maxBuffer: 64 << 20 })).stdout;
    const segments = nonGcSegments(await sos('eeheap -gc'));
    expect(segments.length).toBeGreaterThan(0);

    const want = new Map<string, [number, number]>();
    for (const [begin, end] of segments) {
      for (const [name, [c, b]] of dumpheapStat(await sos(`dumpheap -stat ${begin.toString(16)} ${end.toString(16)}`))) {
        const prev = want.get(name) ?? [0, 0];
        want.set(name, [prev[0] + c, prev[1] + b]);
      }
    }
    want.delete('Free'); // gaps, not objects (our capture has none)

    // SOS never reports an object below the minimum object size (3 pointers): string.Empty, which
    // the runtime's BulkNode event gives as 22 bytes on x64, is 24 there
    const minSize = 3 * g.metadata.pointerSize;
    const got = new Map<string, [number, number]>();
    let misplaced = 0;
    for (let n = 0; n < g.nodeCount; n++) {
      if (g.nodeFlags[n] & (NODE_PSEUDO | NODE_UNDEFINED)) continue;
      const a = g.address[n];
      const onNonGc = segments.some(([begin, end]) => begin <= a && a < end);
      if (onNonGc !== (g.generation[n] === GEN_FROZEN)) misplaced++;
      if (g.generation[n] !== GEN_FROZEN) continue;
      const name = g.types.names[g.nodeType[n]];
      const prev = got.get(name) ?? [0, 0];
      got.set(name, [prev[0] + 1, prev[1] + Math.max(minSize, g.selfSize[n])]);
    }
    expect(misplaced).toBe(0);
    const sorted = (m: Map<string, [number, number]>) => [...m.entries()].sort((x, y) => (x[0] < y[0] ? -1 : 1));
    expect(sorted(got)).toEqual(sorted(want));
    expect(want.get('System.String')![0]).toBeGreaterThan(0);
  }, 180_000);
});
