import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { writeProcessDump } from '../../electron/diagnostics/dump-writer.js';
import { findDumpHelper, liveHelpers } from '../../electron/dump-reader/helper-process.js';
import { AppError } from '../../shared/errors.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from '../helpers/dotnet-app.js';
import { peerMissing, peerTool } from '../helpers/peer-tools.js';
import { captureIo } from '../helpers/capture-io.js';
import { stopDumped } from '../helpers/process-dump.js';

/**
 * `heapscope dump`: the target's own runtime writes a core dump over the diagnostics IPC. LeakyApp
 * (test/dotnet/LeakyApp) keeps exactly 1,000 HeapscopeTest.LeakyPage objects alive; dotnet-dump,
 * reading our file, must find them, and so must `heapscope report` through the dump helper. Dumps
 * are ~100 MB: they live in a temp dir removed in afterAll.
 */
const DOTNET_DUMP = peerTool('dotnet-dump');
const DUMP_HELPER = findDumpHelper();
const HELPER_MISSING = 'the dump reader is not built (npm run build:dump-reader)';

/** Processes whose command line mentions `needle` (createdump helpers still writing into our dir). */
function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(needle)) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

describe.skipIf(!HAS_DOTNET || process.platform !== 'linux')(`heapscope dump of a live .NET process (${HAS_DOTNET ? 'dotnet found' : DOTNET_MISSING})`, () => {
  let app: RunningApp;
  let dir: string;
  let dll: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-dump-'));
    dll = buildDotnetApp('LeakyApp');
    app = await startDotnetApp(dll);
  }, 300_000);
  afterAll(async () => {
    if (app) await stopDumped(app);
    rmSync(dir, { recursive: true, force: true });
  });

  const dumpPath = () => join(dir, 'leaky.dmp');

  it('writes a WithHeap ELF core and reports it as JSON', async () => {
    const c = captureIo();
    expect(await runCli(['dump', '-p', String(app.pid), '--type', 'heap', '-o', dumpPath(), '--format', 'json'], c.io)).toBe(0);
    const r = JSON.parse(c.out) as { path: string; bytes: number; type: string; pid: number; ms: number };
    expect(Object.keys(r)).toEqual(['path', 'bytes', 'type', 'pid', 'ms']);
    expect(r.path).toBe(dumpPath());
    expect(r.type).toBe('heap');
    expect(r.pid).toBe(app.pid);
    expect(r.bytes).toBe(statSync(dumpPath()).size);
    expect(r.bytes).toBeGreaterThan(1_000_000);
    expect(r.ms).toBeGreaterThanOrEqual(0);

    const head = Buffer.alloc(18);
    const fd = openSync(dumpPath(), 'r');
    readSync(fd, head, 0, 18, 0);
    closeSync(fd);
    expect(Array.from(head.subarray(0, 4))).toEqual([0x7f, 0x45, 0x4c, 0x46]); // \x7fELF
    expect(head.readUInt16LE(16)).toBe(4); // e_type ET_CORE
  }, 180_000);

  it.skipIf(!DOTNET_DUMP)(`dotnet-dump reads the dump and counts exactly 1,000 LeakyPage objects (${DOTNET_DUMP ? 'dotnet-dump found' : peerMissing('dotnet-dump')})`, () => {
    const out = execFileSync(DOTNET_DUMP!, ['analyze', dumpPath(), '-c', 'dumpheap -stat', '-c', 'exit'], {
      encoding: 'utf8',
      timeout: 180_000,
      env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1' },
    });
    const row = out.split('\n').find((l) => /\sHeapscopeTest\.LeakyPage\s*$/.test(l));
    expect(row, out).toBeDefined();
    // "MT  Count  TotalSize  Class Name"
    expect(row!.trim().split(/\s+/)[1]).toBe('1,000');
  }, 200_000);

  it.skipIf(!DUMP_HELPER)(`heapscope report reads the written dump: exactly 1,000 LeakyPage objects (${DUMP_HELPER ? 'dump reader built' : HELPER_MISSING})`, async () => {
    const c = captureIo();
    expect(await runCli(['report', dumpPath(), '--format', 'json'], c.io)).toBe(0);
    const rows = JSON.parse(c.out) as { type: string; count: number; shallowSize: number }[];
    const page = rows.find((x) => x.type === 'HeapscopeTest.LeakyPage');
    expect(page).toMatchObject({ count: 1000, shallowSize: 32_000 });
    expect(liveHelpers()).toBe(0);
  }, 200_000);

  it.skipIf(DUMP_HELPER !== null)('without the built dump reader, heapscope report of the dump is one dump/helper-missing line', async () => {
    const c = captureIo();
    expect(await runCli(['report', dumpPath()], c.io)).toBe(3);
    expect(c.err).toMatch(/^error dump\/helper-missing: .*npm run build:dump-reader.*\n$/);
  }, 60_000);

  it('the text output names the file, its size and the heapscope command that opens it; an existing file is never overwritten', async () => {
    const out = join(dir, 'text.dmp');
    const c = captureIo();
    expect(await runCli(['dump', '-p', String(app.pid), '-o', out], c.io)).toBe(0);
    const bytes = statSync(out).size;
    expect(c.out).toBe(
      `wrote ${out}: ${bytes.toLocaleString('en-US')} bytes, WithHeap dump of process ${app.pid} (${c.out.match(/\(([\d.]+ s)\)/)![1]})\n` +
        `open it with: heapscope report ${out}\n`,
    );
    rmSync(out);

    const again = captureIo();
    expect(await runCli(['dump', '-p', String(app.pid), '-o', dumpPath()], again.io)).toBe(3);
    expect(again.err).toBe(`error usage/bad-argument: leaky.dmp already exists in ${dir}; choose another -o or delete it\n`);
  }, 180_000);

  it('a path the target cannot create gives dump/refused with the runtime\'s own reason, and no file', async () => {
    const c = captureIo();
    expect(await runCli(['dump', '-p', String(app.pid), '-o', '/proc/heapscope-test.dmp'], c.io)).toBe(3);
    expect(c.err).toMatch(/^error dump\/refused: the runtime of process \d+ refused to write the dump, HRESULT 0x80004005 \(E_FAIL\): .*Could not create output file '\/proc\/heapscope-test\.dmp'/);
    expect(c.err).toMatch(/writable by the target process's user\); no dump file was left behind\n$/);
    expect(c.err.split('\n').length).toBe(2); // one line
  }, 60_000);

  it('no process / not a .NET process: coded one-line errors', async () => {
    const gone = captureIo();
    expect(await runCli(['dump', '-p', '999999999'], gone.io)).toBe(3);
    expect(gone.err).toBe('error process/not-found: no process with id 999999999\n');
    const notDotnet = captureIo();
    expect(await runCli(['dump', '-p', String(process.pid)], notDotnet.io)).toBe(3);
    expect(notDotnet.err).toMatch(/^error process\/not-dotnet: process \d+ has no \.NET diagnostics endpoint/);
  });

  it('a process killed right after the request gives dump/process-exited, leaves no file and no createdump behind', async () => {
    const victim = await startDotnetApp(dll);
    const path = join(dir, 'victim.dmp');
    let sent = 0;
    const err = await writeProcessDump({
      pid: victim.pid,
      path,
      kind: 'heap',
      timeoutSec: 60,
      onRequestSent: () => {
        sent++;
        victim.child.kill('SIGKILL');
      },
    }).then(
      () => null,
      (e: unknown) => e,
    );
    // bounded, and saying what is left if it does not end (a killed target that createdump
    // still traces is not reported exited to us until createdump lets go)
    const stopped = await Promise.race([victim.stop().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 30_000))]);
    expect(stopped, `the killed target ${victim.pid} did not exit within 30 s; processes naming the dump: ${processesMentioning(path).join(', ') || 'none'}`).toBe(true);
    expect(sent).toBe(1);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('dump/process-exited');
    expect((err as AppError).message).toMatch(new RegExp(`^process ${victim.pid} exited while its dump was being written; (no dump file was left behind|removed the partial file ${path.replace(/[.]/g, '\\.')})$`));
    // orphan check: createdump (the runtime's child) must not outlive its target, nor leave files
    const until = Date.now() + 10_000;
    while (processesMentioning(path).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(processesMentioning(path)).toEqual([]);
    expect(existsSync(path)).toBe(false);
    // A SIGKILLed runtime cannot remove its diagnostics socket and debugger pipes: we do.
    const leftovers = readdirSync(tmpdir()).filter((n) => n.startsWith(`dotnet-diagnostic-${victim.pid}-`) || n.startsWith(`clr-debug-pipe-${victim.pid}-`));
    expect(leftovers.length).toBeGreaterThan(0);
    for (const n of leftovers) rmSync(join(tmpdir(), n), { force: true });
  }, 120_000);

  it('leaves only the dump it was asked for, and no createdump process', () => {
    expect(readdirSync(dir)).toEqual(['leaky.dmp']);
    expect(processesMentioning(dir)).toEqual([]);
  });
});
