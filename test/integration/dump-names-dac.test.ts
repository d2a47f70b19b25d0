import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { liveHelpers } from '../../electron/dump-reader/helper-process.js';
import '../../electron/dump-reader/register-dump-reader.js';
import { FileByteSource } from '../../electron/files/file-byte-source.js';
import '../../shared/formats/all-readers.js';
import { readSnapshot } from '../../shared/formats/read-snapshot.js';
import { formatAddress } from '../../shared/graph/heap-graph.js';
import type { FileEntry, FileToken, SessionId } from '../../shared/ipc/contract.js';
import { SnapshotSession } from '../../shared/session/snapshot-session.js';
import type { DumpObject, DumpRuntimeInfo, DumpThread } from '../../shared/formats/dump/dump-queries.js';
import { runCliCaptured as cli, runCliJson as json } from '../helpers/capture-io.js';
import { useContentsDump } from '../helpers/contents-dump-suite.js';
import { DUMP_CONTENTS_SKIP } from '../helpers/dump-contents.js';
import { peerMissing, peerTool } from '../helpers/peer-tools.js';

/**
 * What a dump shows where users look: the DAC the dump reader actually loaded (and what ties it to
 * the dump's runtime), and thread names (the managed Thread object's _name). DumpContentsApp names
 * its threads "parked" and "catcher"; its main thread is unnamed. Peers: readelf (build ids), the
 * DAC file's own version string, SOS `dumpvc` / `du` (the Thread object's fields and name text).
 */
const dotnetDump = peerTool('dotnet-dump');
const readelf = ['/usr/bin/readelf', '/bin/readelf'].find((p) => existsSync(p)) ?? null;
const RUNTIME_DIR = '/usr/share/dotnet/shared/Microsoft.NETCore.App/';


function buildIdOf(file: string): string {
  const out = execFileSync(readelf!, ['-n', file], { encoding: 'utf8' });
  return /Build ID: ([0-9a-f]+)/.exec(out)![1];
}

/** The "@(#)Version a.b.c.d" string the runtime's Linux builds embed. */
function embeddedVersion(file: string): string {
  return /@\(#\)Version ([0-9.]+)/.exec(readFileSync(file).toString('latin1'))![1];
}

function sos(dump: string, ...commands: string[]): string {
  return execFileSync(dotnetDump!, ['analyze', dump, ...commands.flatMap((c) => ['-c', c]), '-c', 'exit'], { encoding: 'utf8', timeout: 120_000 });
}

describe.skipIf(DUMP_CONTENTS_SKIP !== null)(`thread names and the DAC used on a real dump (${DUMP_CONTENTS_SKIP ?? 'dotnet and the dump reader found'})`, () => {
  const d = useContentsDump();

  it('runtime: the DAC loaded is the one beside the dump\'s runtime, matched by the runtime\'s build id', async () => {
    const r = await json<DumpRuntimeInfo>(['runtime', d.dump]);
    const dac = join(dirname(r.runtimeModule), 'libmscordaccore.so');
    expect(r.dacFile).toBe(dac);
    // ClrMD lists one DAC for a Linux dump: a bare file name under the runtime's build id, which it
    // cannot fetch on Linux (no symbol-server DAC download there); the runtime directory's DAC is loaded.
    expect(r.dacCandidates!.map((c) => [c.file, c.platform, c.architecture, c.onDisk])).toEqual([['libmscordaccore.so', 'LINUX', 'X64', false]]);
    const dumpBuildId = r.dacCandidates![0].buildId!;
    expect(dumpBuildId).toMatch(/^[0-9a-f]{40}$/);
    expect(r.dac).toEqual({
      file: dac,
      source: 'runtime-directory',
      candidate: -1,
      matchedBy: 'build-id',
      dacVersion: embeddedVersion(dac),
      runtimeVersion: '0.0',
      runtimeBuildId: dumpBuildId,
      localRuntimeBuildId: readelf ? buildIdOf(r.runtimeModule) : dumpBuildId,
    });
    const table = await cli(['runtime', d.dump]);
    expect(table.out.split('\n').slice(2, 4)).toEqual([
      `DAC         ${dac}`,
      `            found beside the runtime library the dump names; matched by build id ${dumpBuildId} (the runtime library beside it is the dump's build)`,
    ]);
  }, 120_000);

  it.skipIf(!readelf || !existsSync(RUNTIME_DIR))('runtime: a dump whose runtime directory holds another build reports that directory\'s DAC, not matched; the same runtime build there matches by build id', async (ctx) => {
    // Rewrite the runtime directory the dump names (same length: every offset stays valid) to a
    // directory of ours, holding the machine's DAC and, as "libcoreclr.so", another library (a
    // different build id) or the real runtime library.
    const base = mkdtempSync(join(tmpdir(), 'hsd-'));
    const fake = `${base}/r`.padEnd(RUNTIME_DIR.length - 1, 'x') + '/';
    if (fake.length !== RUNTIME_DIR.length) {
      rmSync(base, { recursive: true, force: true });
      ctx.skip(`TMPDIR ${tmpdir()} is too long for a path as long as ${RUNTIME_DIR}`);
    }
    const bytes = readFileSync(d.dump);
    const from = Buffer.from(RUNTIME_DIR);
    for (let at = bytes.indexOf(from); at >= 0; at = bytes.indexOf(from, at + 1)) Buffer.from(fake).copy(bytes, at);
    const moved = join(d.dir, 'moved.dmp');
    writeFileSync(moved, bytes);
    const real = await json<DumpRuntimeInfo>(['runtime', d.dump]);
    const version = real.runtimeModule.slice(RUNTIME_DIR.length).split('/')[0];
    const dir = join(fake, version);
    mkdirSync(dir, { recursive: true });
    symlinkSync(real.dacFile!, join(dir, 'libmscordaccore.so'));
    const other = join(RUNTIME_DIR, version, 'libclrjit.so');
    symlinkSync(other, join(dir, 'libcoreclr.so'));

    const r = await json<DumpRuntimeInfo>(['runtime', moved]);
    expect(r.runtimeModule).toBe(join(dir, 'libcoreclr.so'));
    expect(r.dacFile).toBe(join(dir, 'libmscordaccore.so'));
    expect(r.dac).toMatchObject({ file: join(dir, 'libmscordaccore.so'), source: 'runtime-directory', matchedBy: 'none', runtimeBuildId: real.dac!.runtimeBuildId, localRuntimeBuildId: buildIdOf(other) });
    const table = await cli(['runtime', moved]);
    expect(table.out.split('\n')[3]).toBe(
      `            found beside the runtime library the dump names; not matched: the dump's runtime build id is ${real.dac!.runtimeBuildId}, the runtime beside the DAC ${buildIdOf(other)}; loaded with mismatches ignored`,
    );

    rmSync(join(dir, 'libcoreclr.so'));
    symlinkSync(real.runtimeModule, join(dir, 'libcoreclr.so'));
    const same = await json<DumpRuntimeInfo>(['runtime', moved]);
    expect(same.dac).toMatchObject({ file: join(dir, 'libmscordaccore.so'), matchedBy: 'build-id', localRuntimeBuildId: real.dac!.runtimeBuildId });
    rmSync(base, { recursive: true, force: true });
    expect(liveHelpers()).toBe(0);
  }, 120_000);

  it('threads: each thread\'s name is its Thread object\'s _name (parked, catcher; the main thread has none)', async () => {
    const { threads } = await json<{ threads: DumpThread[] }>(['threads', d.dump]);
    const by = (method: string) => threads.find((t) => t.frames.some((f) => f.method?.startsWith(method)))!;
    const parked = by('HeapscopeTest.ParkedWorker.HoldLocals(');
    const catcher = by('HeapscopeTest.ParkedWorker.WaitInCatch(');
    const main = threads.find((t) => t.managedThreadId === 1)!;
    expect([parked.name, catcher.name, main.name]).toEqual(['parked', 'catcher', null]);
    const thread = await json<DumpObject>(['object', d.dump, '--address', parked.managedObject!]);
    expect(thread.type).toBe('System.Threading.Thread');
    expect(thread.fields.filter((f) => f.name === '_name' || f.name === '_managedThreadId').map((f) => [f.name, f.value.text])).toEqual([
      ['_name', '"parked"'],
      ['_managedThreadId', String(parked.managedThreadId)],
    ]);
    const table = await cli(['threads', d.dump]);
    expect(table.out).toContain(`\nThread ${parked.managedThreadId} "parked" (OS 0x${parked.osThreadId.toString(16)}, `);
    expect(table.out).toContain(`\nThread 1 (OS 0x${main.osThreadId.toString(16)}, `);
  }, 120_000);

  it('string values on a real dump: the Sample\'s Label in the Instances rows (filter by value), the inspector and the CLI\'s paths and dominators', async () => {
    const source = await FileByteSource.open(d.dump);
    const g = await readSnapshot(source).finally(() => source.close());
    const file: FileEntry = { token: 't' as FileToken, name: 'contents.dmp', displayPath: d.dump, size: 1, modifiedMs: 0, source: 'path', formatHint: null, exists: true };
    const s = new SnapshotSession(g, { sessionId: 's' as SessionId, file, parseMs: 1 });
    s.runAnalysis();
    let sample = 0;
    while (g.types.names[g.nodeType[sample]] !== 'HeapscopeTest.Sample') sample++;
    const o = await json<DumpObject>(['object', d.dump, '--address', formatAddress(g, sample)]);
    const label = o.fields.find((f) => f.name === 'Label')!.value;
    if (label.kind !== 'string') throw new Error(label.kind);
    const rows = s.objectRows({ typeIndex: g.types.names.indexOf('System.String'), sort: { key: 'address', dir: 'asc' }, filter: 'HELLO DUMP', start: 0, end: 10 }).rows;
    expect(rows.map((r) => [r.address, r.value, r.valueLength])).toEqual([[label.address, 'hello dump', 10]]);
    expect(s.objectInfo({ node: rows[0].node })).toMatchObject({ value: 'hello dump', valueLength: 10 });

    const paths = await json<{ target: { typeName: string; preview?: string }; paths: { steps: { typeName: string; field?: string; preview?: string }[] }[] }>(['paths', d.dump, '--address', label.address]);
    expect(paths.target).toMatchObject({ typeName: 'System.String', preview: '"hello dump"' });
    const last = paths.paths[0].steps.at(-1)!;
    expect([last.field, last.preview]).toEqual(['Label', '"hello dump"']);
    const table = await cli(['paths', d.dump, '--address', label.address]);
    expect(table.out).toMatch(/\n\s+\d+\s+Label\s+System\.String\s+0x[0-9a-f]+\s+"hello dump"\s+\d+\n/);
    const dom = await json<{ type: string; value: string | null }[]>(['dominators', d.dump, '--top', '3', '--depth', '1']);
    expect(dom.every((r) => 'value' in r)).toBe(true);
  }, 180_000);

  it.skipIf(!dotnetDump)(`threads: SOS finds the same Thread object per OS thread, its _managedThreadId and its _name text (${dotnetDump ? 'dotnet-dump found' : peerMissing('dotnet-dump')})`, async () => {
    const { threads } = await json<{ threads: DumpThread[] }>(['threads', d.dump]);
    const parked = threads.find((t) => t.name === 'parked')!;
    const thread = await json<DumpObject>(['object', d.dump, '--address', parked.managedObject!]);
    // dumpobj on a Thread crashes this SOS; dumpvc (the fields at the object's data) does not.
    const vc = sos(d.dump, `dumpvc ${thread.methodTable} ${'0x' + (BigInt(parked.managedObject!) + 8n).toString(16)}`);
    const fieldValue = (name: string) => new RegExp(`\\s(\\S+) ${name}\\s*$`, 'm').exec(vc)![1];
    expect(Number(fieldValue('_managedThreadId'))).toBe(parked.managedThreadId);
    // t_currentThread's values: OS thread id (hex) → that thread's Thread object
    const current = new Map([...vc.matchAll(/^\s+([0-9a-f]+):([0-9a-f]{16})\s*$/gm)].map((m) => [parseInt(m[1], 16), '0x' + BigInt('0x' + m[2]).toString(16)]));
    expect(current.size).toBeGreaterThanOrEqual(4);
    for (const [os, obj] of current) expect([os, threads.find((t) => t.osThreadId === os)?.managedObject]).toEqual([os, obj]);
    const name = BigInt('0x' + fieldValue('_name'));
    const text = sos(d.dump, `du ${(name + 12n).toString(16)}`);
    expect(/Text: '([^']*)'/.exec(text)![1]).toBe('parked');
  }, 180_000);
});
