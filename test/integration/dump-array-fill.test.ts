import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { findDumpHelper, liveHelpers } from '../../electron/dump-reader/helper-process.js';
import { captureIo } from '../helpers/capture-io.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../helpers/dotnet-app.js';

/**
 * Sparse arrays, empty arrays and empty collections on a real process dump: SparseApp
 * (test/dotnet/SparseApp) keeps known arrays and collections of its own types; `heapscope dump`
 * writes its core and `heapscope inspect` reads it through the ClrMD helper. Sizes on 64-bit: an
 * array is 24 bytes (object header, method table, length) plus its elements; a List<T> is 32 bytes.
 */
const helper = findDumpHelper();
const skip = !HAS_DOTNET ? DOTNET_MISSING : process.platform !== 'linux' ? 'heapscope dump writes core dumps on Linux only here' : !helper ? 'the dump reader is not built (npm run build:dump-reader): dump tests skipped' : null;

interface InspectDoc {
  findings: { kind: string; title: string; objects: number; bytes: number; shallowBytes: number; examples: { type: string }[]; details: Record<string, unknown> }[];
  unavailable: { kind: string }[];
}

function alive(pid: number): boolean {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return st.slice(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe.skipIf(skip !== null)(`array and collection fill of a process dump (${skip ?? 'dotnet and the dump reader found'})`, () => {
  let app: RunningApp;
  let dir: string;
  let dump: string;
  let gcdump: string;
  let doc: InspectDoc;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-sparse-'));
    app = await startDotnetApp(buildDotnetApp('SparseApp'));
    dump = join(dir, 'sparse.dmp');
    const d = captureIo();
    expect(await runCli(['dump', '-p', String(app.pid), '-o', dump], d.io), d.err).toBe(0);
    gcdump = join(dir, 'sparse.gcdump');
    const c = captureIo();
    expect(await runCli(['collect', '-p', String(app.pid), '-o', gcdump], c.io), c.err).toBe(0);
    const j = captureIo();
    expect(await runCli(['inspect', dump, '--format', 'json'], j.io), j.err).toBe(0);
    doc = JSON.parse(j.out) as InspectDoc;
  }, 300_000);
  afterAll(async () => {
    if (app) {
      app.child.stdin?.end();
      for (let i = 0; alive(app.pid) && i < 100; i++) await new Promise((r) => setTimeout(r, 100));
      if (alive(app.pid)) app.child.kill('SIGKILL');
      app.child.stdout?.destroy();
      app.child.unref();
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const ours = (kind: string) =>
    doc.findings.filter((f) => f.kind === kind && f.title.includes('HeapscopeTest.')).map((f) => ({ objects: f.objects, bytes: f.bytes, shallowBytes: f.shallowBytes, details: f.details }));

  it('finds exactly the sparse arrays the program made, with the bytes their default elements take', () => {
    expect(ours('sparse-arrays')).toEqual([
      // 1,000 Item[100] with 3 set, and the 200 lists' Item[16] with none set
      {
        objects: 1200,
        bytes: 1000 * 824 + 200 * 152,
        shallowBytes: 1000 * 824 + 200 * 152,
        details: { type: 'HeapscopeTest.Item[]', elements: 103_200, nonDefaultElements: 3000, elementSize: 8, wastedBytes: 1000 * 97 * 8 + 200 * 16 * 8 },
      },
      // 100 Pair[64] with 10 structs set: an all-zero struct is default
      { objects: 100, bytes: 104_800, shallowBytes: 104_800, details: { type: 'HeapscopeTest.Pair[]', elements: 6400, nonDefaultElements: 1000, elementSize: 16, wastedBytes: 100 * 54 * 16 } },
      // 10 Item[8, 8] with 3 set: the bounds before the elements are not elements
      { objects: 10, bytes: 5520, shallowBytes: 5520, details: { type: 'HeapscopeTest.Item[,]', elements: 640, nonDefaultElements: 30, elementSize: 8, wastedBytes: 10 * 61 * 8 } },
    ]);
    expect(liveHelpers()).toBe(0);
  });

  it('finds the 500 empty Marker[] and the 250 empty collections', () => {
    expect(ours('empty-arrays')).toEqual([{ objects: 500, bytes: 12_000, shallowBytes: 12_000, details: { type: 'HeapscopeTest.Marker[]' } }]);
    const empty = ours('empty-collections');
    expect(empty.find((f) => f.details.type === 'System.Collections.Generic.List<HeapscopeTest.Item>')).toEqual({
      objects: 200,
      bytes: 200 * (32 + 152),
      shallowBytes: 200 * 32,
      details: { type: 'System.Collections.Generic.List<HeapscopeTest.Item>', withCapacity: 200, backingBytes: 200 * 152 },
    });
    // 25 with capacity 3: an int[3] _buckets (24 + 12 = 36 bytes: ClrMD and SOS give object sizes before alignment) and an Entry[3] _entries (24 + 3 × 24 = 96)
    const dict = empty.find((f) => f.details.type === 'System.Collections.Generic.Dictionary<System.Int32, HeapscopeTest.Item>')!;
    expect(dict.objects).toBe(50);
    expect(dict.details).toEqual({ type: 'System.Collections.Generic.Dictionary<System.Int32, HeapscopeTest.Item>', withCapacity: 25, backingBytes: 25 * (36 + 96) });
    expect(dict.bytes).toBe(dict.shallowBytes + 25 * (36 + 96));
    expect(dict.shallowBytes).toBe(50 * 80);
    expect(doc.unavailable.map((u) => u.kind)).toEqual([]);
  });

  it('a .gcdump of the same process has no contents: the three are listed as not checked', async () => {
    const c = captureIo();
    expect(await runCli(['inspect', gcdump, '--format', 'json'], c.io)).toBe(0);
    const r = JSON.parse(c.out) as InspectDoc;
    expect(r.findings.filter((f) => ['sparse-arrays', 'empty-arrays', 'empty-collections'].includes(f.kind))).toEqual([]);
    expect(r.unavailable.map((u) => u.kind)).toEqual(['duplicate-strings', 'sparse-arrays', 'empty-collections']);
  }, 120_000);
});
