import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTimeKey } from '../../../../electron/diagnostics/endpoints.js';
import { defaultProcessDumpName, runtimeSays, writeProcessDump } from '../../../../electron/diagnostics/dump-writer.js';
import { AppError } from '../../../../shared/errors.js';
import { encodeMessage } from '../../../../shared/diagnostics/ipc-messages.js';

/**
 * writeProcessDump against a scripted fake runtime: a Unix socket named like this test process's
 * diagnostics endpoint that answers each GenerateCoreDump* request the way a given runtime would.
 */
type Reply = (req: Uint8Array, sock: Socket, path: string) => void;

const ok = () => encodeMessage(0xff, 0x00, Uint8Array.of(0, 0, 0, 0));
const err = (hr: number, text?: string) => {
  const units = text === undefined ? 0 : text.length + 1;
  const p = new Uint8Array(4 + (text === undefined ? 0 : 4 + 2 * units));
  const dv = new DataView(p.buffer);
  dv.setUint32(0, hr, true);
  if (text !== undefined) {
    dv.setUint32(4, units, true);
    for (let i = 0; i < text.length; i++) dv.setUint16(8 + 2 * i, text.charCodeAt(i), true);
  }
  return encodeMessage(0xff, 0xff, p);
};

describe.skipIf(process.platform !== 'linux')('writeProcessDump against a fake runtime', () => {
  const saved = process.env.TMPDIR;
  let dir = '';
  let server: Server | null = null;
  const sockets: Socket[] = [];
  afterEach(async () => {
    // assigning undefined would store the string "undefined" (CI has no TMPDIR)
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    for (const s of sockets) s.destroy();
    sockets.length = 0;
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = null;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Serve `replies[i]` for the i-th connection; returns the requests' command ids. */
  async function fakeRuntime(replies: Reply[]): Promise<{ commands: number[]; dumpPath: string }> {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-fakert-'));
    process.env.TMPDIR = dir;
    const key = await startTimeKey(process.pid);
    const commands: number[] = [];
    const dumpPath = join(dir, 'out.dmp');
    server = createServer((sock) => {
      sockets.push(sock);
      let buf = new Uint8Array(0);
      sock.on('data', (b: Buffer) => {
        buf = Uint8Array.from([...buf, ...b]);
        if (buf.length < 20 || buf.length < new DataView(buf.buffer).getUint16(14, true)) return;
        expect(buf[16]).toBe(0x01); // Dump command set
        commands.push(buf[17]);
        replies[commands.length - 1](buf, sock, dumpPath);
      });
    });
    await new Promise<void>((r) => server!.listen(join(dir, `dotnet-diagnostic-${process.pid}-${key}-socket`), r));
    return { commands, dumpPath };
  }

  const fail = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error('expected a failure');
      },
      (e: unknown) => e as AppError,
    );

  it('falls back 3 → 2 → 1 on "unknown command" and verifies the file', async () => {
    const unknown: Reply = (_q, s) => s.end(err(0x80131385));
    const rt = await fakeRuntime([unknown, unknown, (_q, s, path) => (writeFileSync(path, 'core'), s.end(ok()))]);
    const r = await writeProcessDump({ pid: process.pid, path: rt.dumpPath, kind: 'full', timeoutSec: 5 });
    expect(rt.commands).toEqual([3, 2, 1]);
    expect(r).toMatchObject({ path: rt.dumpPath, bytes: 4, kind: 'full', pid: process.pid, command: 1 });
  });

  it('the dump type and path are what the request carries', async () => {
    let payload: number[] = [];
    const rt = await fakeRuntime([(q, s, path) => ((payload = Array.from(q.subarray(20))), writeFileSync(path, 'x'), s.end(ok()))]);
    await writeProcessDump({ pid: process.pid, path: rt.dumpPath, kind: 'heap', timeoutSec: 5 });
    const units = rt.dumpPath.length + 1;
    expect(payload.slice(0, 4)).toEqual([units, 0, 0, 0]);
    expect(String.fromCharCode(...payload.slice(4, 4 + 2 * rt.dumpPath.length).filter((_, i) => i % 2 === 0))).toBe(rt.dumpPath);
    expect(payload.slice(4 + 2 * units)).toEqual([2, 0, 0, 0, 0, 0, 0, 0]); // WithHeap, no flags
  });

  it('an error HRESULT with the runtime text is dump/refused; a partial file is removed and said so', async () => {
    const rt = await fakeRuntime([(_q, s, path) => (writeFileSync(path, 'half'), s.end(err(0x80004005, "[createdump] Could not write\n[createdump] Failure took 12ms")))]);
    const e = await fail(writeProcessDump({ pid: process.pid, path: rt.dumpPath, kind: 'heap', timeoutSec: 5 }));
    expect(e.code).toBe('dump/refused');
    expect(e.message).toBe(
      `the runtime of process ${process.pid} refused to write the dump, HRESULT 0x80004005 (E_FAIL): Could not write ` +
        `(the path must be absolute, in an existing directory, and writable by the target process's user); removed the partial file ${rt.dumpPath}`,
    );
    expect(e.detail).toEqual({ hresult: 0x80004005, runtimeMessage: '[createdump] Could not write\n[createdump] Failure took 12ms' });
    expect(existsSync(rt.dumpPath)).toBe(false);
  });

  it('success without a file is dump/refused', async () => {
    const rt = await fakeRuntime([(_q, s) => s.end(ok())]);
    const e = await fail(writeProcessDump({ pid: process.pid, path: rt.dumpPath, kind: 'heap', timeoutSec: 5 }));
    expect(e.code).toBe('dump/refused');
    expect(e.message).toMatch(/reported success but no file exists at .*out\.dmp/);
  });

  it('no answer within --timeout is dump/timeout, naming the file still being written', async () => {
    const rt = await fakeRuntime([(_q, _s, path) => writeFileSync(path, 'abc')]);
    const t0 = Date.now();
    const e = await fail(writeProcessDump({ pid: process.pid, path: rt.dumpPath, kind: 'heap', timeoutSec: 1 }));
    expect(Date.now() - t0).toBeLessThan(20_000); // bounded, not hung
    expect(e.code).toBe('dump/timeout');
    expect(e.message).toBe(
      `process ${process.pid} did not finish its dump within 1 s (try --timeout); the runtime may still be writing ${rt.dumpPath} (3 bytes so far): delete it if it stays incomplete`,
    );
  });

  it('a target that dies while the connection stays open is dump/process-exited at once, not a wait for --timeout', async () => {
    // the fake runtime never answers and keeps the socket open, as an inherited copy in the
    // runtime's createdump child can after the runtime itself died
    const rt = await fakeRuntime([(_q, _s, path) => writeFileSync(path, 'partial')]);
    let dead = false;
    const t0 = Date.now();
    const e = await fail(
      writeProcessDump({ pid: process.pid, path: rt.dumpPath, kind: 'heap', timeoutSec: 60, onRequestSent: () => setTimeout(() => (dead = true), 300), targetGone: () => Promise.resolve(dead) }),
    );
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(e.code).toBe('dump/process-exited');
    expect(e.message).toBe(`process ${process.pid} exited while its dump was being written; removed the partial file ${rt.dumpPath}`);
    expect(existsSync(rt.dumpPath)).toBe(false);
  });

  it('a relative path is refused before anything is sent', async () => {
    const e = await fail(writeProcessDump({ pid: process.pid, path: 'x.dmp', kind: 'heap', timeoutSec: 1 }));
    expect(e.code).toBe('usage/bad-argument');
  });
});

describe('dump names and runtime messages', () => {
  it('default name: <process>_<pid>_<yyyymmdd_hhmmss>.dmp, local time', () => {
    const t = new Date(2026, 10, 5, 7, 8, 9);
    expect(defaultProcessDumpName('LeakyApp', 42, t)).toBe('LeakyApp_42_20261105_070809.dmp');
    expect(defaultProcessDumpName('My App.dll', 42, t)).toBe('My_App_42_20261105_070809.dmp');
    expect(defaultProcessDumpName(null, 7, t)).toBe('dotnet_7_20261105_070809.dmp');
  });

  it("createdump's lines become one line without the timing", () => {
    expect(runtimeSays("[createdump] Could not create output file '/x': No such file (2)\n[createdump] Failure took 346ms")).toBe(
      "Could not create output file '/x': No such file (2)",
    );
    expect(runtimeSays('a\r\nb\n')).toBe('a; b');
  });
});
