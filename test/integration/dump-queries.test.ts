import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DumpQueryClient } from '../../electron/dump-reader/dump-query-client.js';
import { findDumpHelper, liveHelpers, spawnDumpHelper } from '../../electron/dump-reader/helper-process.js';
import { createBackend } from '../../electron/host/backend.js';
import { devWorkerScripts } from '../../electron/workers/worker-scripts.js';
import type { SessionId } from '../../shared/ipc/contract.js';
import '../../electron/dump-reader/register-dump-reader.js';
import { FileByteSource } from '../../electron/files/file-byte-source.js';
import '../../shared/formats/all-readers.js';
import type { DumpField, DumpObject, DumpRuntimeInfo, DumpThread } from '../../shared/formats/dump/dump-queries.js';
import { readSnapshot } from '../../shared/formats/read-snapshot.js';
import { formatAddress, type HeapGraph } from '../../shared/graph/heap-graph.js';
import { runCliCaptured as cli, runCliJson as json } from '../helpers/capture-io.js';
import { DUMP_CONTENTS_SKIP, writeContentsDump, type ContentsDump } from '../helpers/dump-contents.js';
import { peerMissing, peerTool } from '../helpers/peer-tools.js';

/**
 * The dump queries (runtime, threads, object) on a real dump: DumpContentsApp, dumped by
 * `heapscope dump`, has a Sample with known field values, a Timer whose callback targets a
 * disposed Clock, a background thread parked in ParkedWorker.HoldLocals holding a ParkedLocal,
 * and a foreground thread waiting in a catch block. The answers come through the CLI (one helper
 * per command) and through one serve-mode helper (DumpQueryClient). Peer: SOS `clrthreads`.
 */
const dotnetDump = peerTool('dotnet-dump');


function field(o: DumpObject, name: string): DumpField {
  const f = o.fields.find((x) => x.name === name);
  if (!f) throw new Error(`${o.type} has no field ${name}: ${o.fields.map((x) => x.name).join(', ')}`);
  return f;
}

function addressOf(o: DumpObject, name: string): string {
  const v = field(o, name).value;
  if (v.kind !== 'reference' && v.kind !== 'string') throw new Error(`${name} is ${v.kind}`);
  return v.address;
}

describe.skipIf(DUMP_CONTENTS_SKIP !== null)(`dump queries on a real dump (${DUMP_CONTENTS_SKIP ?? 'dotnet and the dump reader found'})`, () => {
  let d: ContentsDump;
  let g: HeapGraph;
  let sample: string;
  beforeAll(async () => {
    d = await writeContentsDump();
    const source = await FileByteSource.open(d.dump);
    try {
      g = await readSnapshot(source);
    } finally {
      await source.close();
    }
    let n = 0;
    while (n < g.nodeCount && g.types.names[g.nodeType[n]] !== 'HeapscopeTest.Sample') n++;
    expect(n).toBeLessThan(g.nodeCount);
    sample = formatAddress(g, n);
  }, 300_000);
  afterAll(() => {
    if (d) rmSync(d.dir, { recursive: true, force: true });
  });

  it('runtime: the CLR version the program printed, its DAC, pointer size, the app domain and the program module', async () => {
    const r = await json<DumpRuntimeInfo & { file: string }>(['runtime', d.dump]);
    expect(r.file).toBe('contents.dmp');
    expect(r.clrVersion).toBe(d.runtimeVersion);
    expect(r.flavor).toBe('Core');
    expect(r.pointerSize).toBe(8);
    expect(r.processId).toBe(d.pid);
    expect(r.dacFile).toMatch(/libmscordaccore\.so$/);
    expect(existsSync(r.dacFile!)).toBe(true);
    expect(r.runtimeModule).toMatch(new RegExp(`/${d.runtimeVersion.replace(/\./g, '\\.')}/libcoreclr\\.so$`));
    expect(r.appDomains.filter((a) => a.kind === 'app').map((a) => a.name)).toEqual(['clrhost']);
    const program = r.modules.filter((m) => m.name.endsWith('/DumpContentsApp.dll'));
    expect(program).toHaveLength(1);
    // A flat-mapped IL image: the runtime's size is the file's.
    expect(program[0].size).toBe(statSync(program[0].name).size);
    const { threads } = await json<{ threads: DumpThread[] }>(['threads', d.dump]);
    expect(r.threadCount).toBe(threads.length);
    const table = await cli(['runtime', d.dump]);
    expect(table.out.split('\n')[0]).toBe(`contents.dmp: .NET ${d.runtimeVersion} (Core), 64-bit X64 LINUX, process ${d.pid}`);
  }, 120_000);

  it('object: every field of the Sample with its declared type and exact value; the same size as the heap walk', async () => {
    const o = await json<DumpObject>(['object', d.dump, '--address', sample]);
    expect([o.type, o.size, o.generation, o.module]).toEqual(['HeapscopeTest.Sample', 112, 'gen2', 'DumpContentsApp.dll']);
    let n = 0;
    while (formatAddress(g, n) !== sample) n++;
    expect(g.selfSize[n]).toBe(o.size);
    expect(o.fields.map((f) => [f.name, f.declaredType, f.value.kind, f.value.text])).toEqual([
      ['Count', 'System.Int32', 'primitive', '42'],
      ['Mood', 'HeapscopeTest.Mood', 'enum', 'Angry'],
      ['Label', 'System.String', 'string', '"hello dump"'],
      ['Enabled', 'System.Boolean', 'primitive', 'true'],
      ['Ratio', 'System.Double', 'primitive', '2.5'],
      ['Big', 'System.Int64', 'primitive', '-9000000000'],
      ['Letter', 'System.Char', 'primitive', 'Q'],
      ['Owner', 'HeapscopeTest.Owner', 'reference', `HeapscopeTest.Owner @ ${addressOf(o, 'Owner')}`],
      ['Numbers', 'System.Int32[]', 'reference', `System.Int32[] @ ${addressOf(o, 'Numbers')}`],
      ['Nothing', 'System.Object', 'null', 'null'],
      ['Where', 'HeapscopeTest.Pair', 'struct', 'HeapscopeTest.Pair'],
      ['Owners', 'HeapscopeTest.Owner[]', 'reference', `HeapscopeTest.Owner[] @ ${addressOf(o, 'Owners')}`],
      // lone surrogates cannot be written as JSON text: each is U+FFFD, the rest kept
      ['Odd', 'System.String', 'string', '"a\uFFFDb"'],
      ['Half', 'System.Char', 'primitive', '\uFFFD'],
    ]);
    expect(o.fields.map((f) => (f.value.kind === 'primitive' || f.value.kind === 'enum' ? f.value.value : null))).toEqual([42, 7, null, true, 2.5, '-9000000000', 'Q', null, null, null, null, null, null, '\uFFFD']);
    expect(field(o, 'Odd').value).toMatchObject({ kind: 'string', value: 'a\uFFFDb', length: 3, truncated: false });
    const where = field(o, 'Where').value;
    expect(where.kind === 'struct' ? where.fields.map((f) => [f.name, f.declaredType, f.value.text]) : where).toEqual([
      ['X', 'System.Int32', '3'],
      ['Y', 'System.Int64', '-4'],
    ]);
    const owners = await json<DumpObject>(['object', d.dump, '--address', addressOf(o, 'Owners')]);
    expect(owners.array!.elements.map((e) => [e.kind, e.kind === 'reference' ? e.type : e.text])).toEqual([
      ['reference', 'HeapscopeTest.Owner'],
      ['null', 'null'],
    ]);
    const owner2 = await json<DumpObject>(['object', d.dump, '--address', (owners.array!.elements[0] as { address: string }).address]);
    expect(field(owner2, 'Name').value).toMatchObject({ kind: 'string', value: 'owner-2' });
    const table = await cli(['object', d.dump, '--address', sample]);
    expect(table.out).toMatch(/\nWhere\.X +System\.Int32 +3\n/);
    expect(table.out).toMatch(/\nWhere\.Y +System\.Int64 +-4\n/);
    expect(field(o, 'Label').value).toMatchObject({ kind: 'string', value: 'hello dump', length: 10, truncated: false, type: 'System.String' });

    const owner = await json<DumpObject>(['object', d.dump, '--address', addressOf(o, 'Owner')]);
    expect(owner.type).toBe('HeapscopeTest.Owner');
    expect(field(owner, 'Name').value).toMatchObject({ kind: 'string', value: 'owner-1' });
    const numbers = await json<DumpObject>(['object', d.dump, '--address', addressOf(o, 'Numbers'), '--elements', '5']);
    expect(numbers.array).toEqual({
      length: 8,
      rank: 1,
      elementType: 'System.Int32',
      truncated: true,
      elements: [3, 1, 4, 1, 5].map((v) => ({ kind: 'primitive', value: v, text: String(v) })),
    });
    const label = await json<DumpObject>(['object', d.dump, '--address', addressOf(o, 'Label'), '--chars', '5']);
    expect(label.string).toEqual({ value: 'hello', length: 10, truncated: true });
  }, 120_000);

  it('object: the Timer still references the disposed Clock (Timer._timer._timer._timerCallback._target)', async () => {
    const c = new DumpQueryClient(d.dump, 'contents.dmp');
    try {
      const holderType = (await c.query({ query: 'object', address: sample })).type;
      expect(holderType).toBe('HeapscopeTest.Sample');
      // The Timer is the static Holder.Timer: find it among the heap walk's Timer objects.
      let timer = -1;
      for (let n = 0; n < g.nodeCount; n++) if (g.types.names[g.nodeType[n]] === 'System.Threading.Timer') timer = timer === -1 ? n : -2;
      expect(timer).toBeGreaterThanOrEqual(0);
      let o = await c.query({ query: 'object', address: formatAddress(g, timer) });
      const steps: string[] = [o.type];
      for (const f of ['_timer', '_timer', '_timerCallback', '_target']) {
        o = await c.query({ query: 'object', address: addressOf(o, f) });
        steps.push(`${f} → ${o.type}`);
      }
      expect(steps).toEqual([
        'System.Threading.Timer',
        '_timer → System.Threading.TimerHolder',
        '_timer → System.Threading.TimerQueueTimer',
        '_timerCallback → System.Threading.TimerCallback',
        '_target → HeapscopeTest.Clock',
      ]);
      expect(o.fields.map((f) => [f.name, f.value.text])).toEqual([
        ['Disposed', 'true'],
        ['Ticks', '0'],
      ]);
      // Six queries, one helper process.
      expect(liveHelpers()).toBe(1);
    } finally {
      await c.close();
    }
    expect(liveHelpers()).toBe(0);
  }, 120_000);

  it('threads: the parked thread stands in ParkedWorker.HoldLocals, whose frame roots the ParkedLocal (Marker 1234); the catcher has its exception', async () => {
    const { threads } = await json<{ threads: DumpThread[] }>(['threads', d.dump]);
    // main, finalizer, timer, parked, catcher; the runtime may add a thread-pool or tiering worker
    expect(threads.length).toBeGreaterThanOrEqual(5);
    const parked = threads.filter((t) => t.frames.some((f) => f.method?.startsWith('HeapscopeTest.ParkedWorker.HoldLocals(')));
    expect(parked).toHaveLength(1);
    const t = parked[0];
    expect([t.alive, t.background, t.finalizer, t.gc, t.exception]).toEqual([true, true, false, false, null]);
    const managed = t.frames.filter((f) => f.kind === 'managed').map((f) => f.method);
    expect(managed).toEqual([
      'System.Threading.WaitHandle.WaitOneNoCheck(Int32, Boolean, System.Object, WaitHandleWaitSourceMap)',
      'HeapscopeTest.ParkedWorker.HoldLocals(System.Threading.ManualResetEventSlim, System.Threading.ManualResetEvent)',
      'HeapscopeTest.Program+<>c__DisplayClass0_0.<Main>b__0()',
      'System.Threading.Thread.StartCallback()',
    ]);
    const frame = t.frames.find((f) => f.method?.startsWith('HeapscopeTest.ParkedWorker.HoldLocals('))!;
    expect(frame.module).toBe('DumpContentsApp.dll');
    const locals = frame.roots.filter((r) => r.type === 'HeapscopeTest.ParkedLocal');
    expect(locals).toHaveLength(1);
    const local = await json<DumpObject>(['object', d.dump, '--address', locals[0].address]);
    expect(local.fields.map((f) => [f.name, f.value.text])).toEqual([['Marker', '1234']]);

    const catcher = threads.filter((x) => x.exception !== null);
    expect(catcher).toHaveLength(1);
    expect(catcher[0].exception).toMatchObject({ type: 'System.InvalidOperationException', message: 'parked in a catch block' });
    expect(catcher[0].background).toBe(false);
    expect(catcher[0].frames.some((f) => f.method?.startsWith('HeapscopeTest.ParkedWorker.WaitInCatch('))).toBe(true);
    expect(threads.filter((x) => x.finalizer)).toHaveLength(1);
    expect(threads.filter((x) => !x.background).map((x) => x.managedThreadId).sort()).toEqual([1, catcher[0].managedThreadId]);

    const table = await cli(['threads', d.dump]);
    expect(table.out).toContain('  HeapscopeTest.ParkedWorker.HoldLocals(System.Threading.ManualResetEventSlim, System.Threading.ManualResetEvent)  [DumpContentsApp.dll]\n');
    expect(table.out).toContain(`      HeapscopeTest.ParkedLocal @ ${locals[0].address}\n`);
  }, 120_000);

  it.skipIf(!dotnetDump)(`threads agree with SOS clrthreads: managed ids, OS ids, finalizer and exception (${dotnetDump ? 'dotnet-dump found' : peerMissing('dotnet-dump')})`, async () => {
    const { threads } = await json<{ threads: DumpThread[] }>(['threads', d.dump]);
    const sos = execFileSync(dotnetDump!, ['analyze', d.dump, '-c', 'clrthreads', '-c', 'exit'], { encoding: 'utf8', timeout: 120_000 });
    const rows: string[] = [];
    for (const line of sos.split('\n')) {
      const m = /^\s*(?:\d+|XXXX)\s+(\d+)\s+([0-9a-f]+)\s+[0-9A-F]{16}\s.*?(\(Finalizer\))?\s*(System\.\S+)?\s*(?:[0-9a-f]{16})?\s*$/.exec(line);
      if (m) rows.push(`${m[1]} 0x${m[2]} ${m[3] ? 'finalizer' : '-'} ${m[4] ?? '-'}`);
    }
    const ours = threads.map((t) => `${t.managedThreadId} 0x${t.osThreadId.toString(16)} ${t.finalizer ? 'finalizer' : '-'} ${t.exception?.type ?? '-'}`);
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(ours.sort()).toEqual(rows.sort());
  }, 120_000);

  it.skipIf(!dotnetDump)(`every thread's stack equals SOS clrstack -all (stack pointer, IP, method or runtime frame); array elements equal SOS dumparray -details (${dotnetDump ? 'dotnet-dump found' : peerMissing('dotnet-dump')})`, async () => {
    const { threads } = await json<{ threads: DumpThread[] }>(['threads', d.dump]);
    const sos = execFileSync(dotnetDump!, ['analyze', d.dump, '-c', 'clrstack -all', '-c', 'exit'], { encoding: 'utf8', timeout: 120_000 });
    const hex = (h: string) => '0x' + BigInt('0x' + h).toString(16);
    const theirs = new Map<number, string[]>();
    let current: string[] | null = null;
    for (const line of sos.split('\n')) {
      const t = /^OS Thread Id: 0x([0-9a-f]+)/.exec(line);
      if (t) theirs.set(parseInt(t[1], 16), (current = []));
      const f = /^([0-9A-Fa-f]{16}) ([0-9A-Fa-f]{16}) (.+?)\s*$/.exec(line);
      if (!f || !current) continue;
      const runtime = /^\[(\w+): [0-9a-f]+\]$/.exec(f[3]);
      current.push(`${hex(f[1])} ${hex(f[2])} ${runtime ? `[${runtime[1]}]` : f[3].replace(/ \[[^\]]* @ \d+\]$/, '')}`);
    }
    const ours = new Map(threads.filter((t) => t.frames.length > 0).map((t) => [t.osThreadId, t.frames.map((f) => `${f.stackPointer} ${f.instructionPointer} ${f.method ?? `[${f.frameName}]`}`)]));
    for (const [id, frames] of [...theirs]) if (frames.length === 0) theirs.delete(id);
    expect(ours).toEqual(theirs);

    const sample0 = await json<DumpObject>(['object', d.dump, '--address', sample]);
    const numbers = addressOf(sample0, 'Numbers');
    const arr = execFileSync(dotnetDump!, ['analyze', d.dump, '-c', `dumparray -details ${numbers}`, '-c', 'exit'], { encoding: 'utf8', timeout: 120_000 });
    const values = [...arr.matchAll(/System\.Int32\s+Yes\s+instance\s+(-?\d+)\s+m_value/g)].map((m) => Number(m[1]));
    const o = await json<DumpObject>(['object', d.dump, '--address', numbers]);
    expect(values).toEqual([3, 1, 4, 1, 5, 9, 2, 6]);
    expect(o.array!.elements.map((e) => (e.kind === 'primitive' ? e.value : null))).toEqual(values);
  }, 120_000);

  it(`coded errors: an address inside an object, a bad address, a .gcdump, a truncated dump, a missing DAC (${existsSync('/usr/share/dotnet/shared/Microsoft.NETCore.App') ? 'runtime in /usr/share/dotnet' : 'runtime elsewhere: DAC case not checked'}); no helper left`, async () => {
    const inside = '0x' + (BigInt(sample) + 8n).toString(16);
    const a = await cli(['object', d.dump, '--address', inside]);
    expect([a.code, a.err]).toEqual([3, `error object/not-found: ${inside} is not the address of an object on the managed heap of this dump\n`]);
    const bad = await cli(['object', d.dump, '--address', 'xyz']);
    expect(bad.code).toBe(2);
    const gcdump = join('/work/shared/fixtures/gcdump', readdirSync('/work/shared/fixtures/gcdump').find((f) => f.endsWith('.gcdump'))!);
    const notDump = await cli(['threads', gcdump]);
    expect(notDump.code).toBe(3);
    expect(notDump.err).toMatch(/^error dump\/not-a-dump: .+\.gcdump is a \.gcdump file; heapscope threads needs a full process dump/);
    const cut = join(d.dir, 'cut.dmp');
    writeFileSync(cut, readFileSync(d.dump).subarray(0, 1 << 20));
    const truncated = await cli(['runtime', cut]);
    expect(truncated.code).toBe(3);
    expect(truncated.err).toMatch(/^error dump\/corrupt: /);

    // The dump as if taken on another machine (the runtime directory it names is not here; a
    // same-length edit keeps every offset valid): the serve-mode helper cannot open it, says so
    // with dump/dac-missing naming the DAC, and the client keeps that answer without restarting.
    const bytes = readFileSync(d.dump);
    const from = Buffer.from('/usr/share/dotnet/shared/Microsoft.NETCore.App/');
    if (bytes.indexOf(from) >= 0) {
      const to = Buffer.from('/usr/share/dotnex/shared/Microsoft.NETCore.App/');
      for (let at = bytes.indexOf(from); at >= 0; at = bytes.indexOf(from, at + 1)) to.copy(bytes, at);
      // ... and of a runtime version not installed here (digits of the version directory → 9): the same
      // version installed here would be loaded instead (DacChoice's installed-runtime fallback).
      const version = /^[0-9][0-9A-Za-z.-]*\//.exec(bytes.subarray(bytes.indexOf(to) + to.length, bytes.indexOf(to) + to.length + 64).toString('latin1'))![0];
      const versioned = Buffer.concat([to, Buffer.from(version)]);
      const other = Buffer.concat([to, Buffer.from(version.replace(/[0-9]/g, '9'))]);
      for (let at = bytes.indexOf(versioned); at >= 0; at = bytes.indexOf(versioned, at + 1)) other.copy(bytes, at);
      const moved = join(d.dir, 'moved.dmp');
      writeFileSync(moved, bytes);
      const c = new DumpQueryClient(moved, 'moved.dmp');
      try {
        const e1 = await c.query({ query: 'threads' }).then(() => null, (x: unknown) => x as { code: string; detail?: { file?: string } });
        expect([e1?.code, e1?.detail?.file]).toEqual(['dump/dac-missing', 'libmscordaccore.so']);
        const e2 = await c.query({ query: 'runtime' }).then(() => null, (x: unknown) => x);
        expect(e2).toBe(e1);
      } finally {
        await c.close();
      }
      const r = await cli(['runtime', moved]);
      expect(r.code).toBe(3);
      expect(r.err).toMatch(/^error dump\/dac-missing: cannot load the runtime's data access component libmscordaccore\.so/);
    }
    expect(liveHelpers()).toBe(0);
  }, 120_000);

  it('the app back end: one dump reader per dump tab, kept across queries, ended when the tab closes or the app exits; other tabs get dump/not-a-dump', async () => {
    const backend = createBackend({
      version: 'test',
      shell: { mode: 'browser', canTypePath: true, exportTarget: async () => null },
      configDir: join(d.dir, 'config'),
      samplePath: null,
      scripts: devWorkerScripts(),
      poolSize: 1,
    });
    try {
      const file = await backend.service.registerPath({ path: d.dump, via: 'typed' });
      const a = await backend.service.open({ fileToken: file.token });
      const b = await backend.service.open({ fileToken: file.token });
      await backend.service.summary({ sessionId: a.sessionId });
      await backend.service.summary({ sessionId: b.sessionId });
      const o = await backend.service.dumpObject({ sessionId: a.sessionId, address: sample });
      expect(field(o, 'Count').value.text).toBe('42');
      const rt = await backend.service.dumpRuntime({ sessionId: a.sessionId });
      expect(rt.clrVersion).toBe(d.runtimeVersion);
      const th = await backend.service.dumpThreads({ sessionId: b.sessionId });
      expect(th.threads.some((t) => t.frames.some((f) => f.method?.startsWith('HeapscopeTest.ParkedWorker.HoldLocals(')))).toBe(true);
      expect([backend.dumps.running, liveHelpers()]).toEqual([2, 2]);
      await backend.service.close({ sessionId: a.sessionId });
      for (let i = 0; i < 100 && liveHelpers() > 1; i++) await new Promise((r) => setTimeout(r, 20));
      expect([backend.dumps.running, liveHelpers()]).toEqual([1, 1]);
      await expect(backend.service.dumpObject({ sessionId: a.sessionId, address: sample })).rejects.toMatchObject({ code: 'session/not-found' });

      const gcdumpDir = '/work/shared/fixtures/gcdump';
      const g2 = await backend.service.registerPath({ path: join(gcdumpDir, readdirSync(gcdumpDir).find((f) => f.endsWith('.gcdump'))!), via: 'typed' });
      const c = await backend.service.open({ fileToken: g2.token });
      await expect(backend.service.dumpThreads({ sessionId: c.sessionId as SessionId })).rejects.toMatchObject({ code: 'dump/not-a-dump' });
      expect(liveHelpers()).toBe(1);
    } finally {
      await backend.dispose();
    }
    expect(liveHelpers()).toBe(0);
  }, 180_000);

  it('serve mode: answers request lines in order, a bad line gets a coded answer, and the helper exits by itself (code 0) when stdin closes — a parent that dies leaves no helper waiting', async () => {
    const child = spawnDumpHelper(findDumpHelper()!, ['serve', d.dump], { stdin: true });
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (c: string) => void (out += c));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.stdin!.write('{"id":7,"query":"object","address":"' + sample + '","elements":1}\n');
    child.stdin!.write('not json\n');
    child.stdin!.write('{"id":8,"query":"nope"}\n');
    child.stdin!.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    expect(await exited).toBe(0);
    clearTimeout(timer);
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { id?: number; ok?: boolean; ready?: boolean; result?: DumpObject; error?: { code: string } });
    expect(lines.map((l) => [l.ready ?? null, l.id ?? null, l.ok ?? null, l.error?.code ?? null])).toEqual([
      [true, null, null, null],
      [null, 7, true, null],
      [null, null, false, 'usage/bad-argument'],
      [null, 8, false, 'usage/bad-argument'],
    ]);
    expect(lines[1].result!.type).toBe('HeapscopeTest.Sample');
    expect(liveHelpers()).toBe(0);
  }, 120_000);
});
