import { readFile, stat, unlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute } from 'node:path';
import { AppError } from '../../shared/errors.js';
import {
  decodeDumpResponse,
  describeDumpHresult,
  DUMP_COMMANDS_NEWEST_FIRST,
  DumpType,
  generateCoreDump,
} from '../../shared/diagnostics/dump-messages.js';
import { processExists } from './endpoints.js';
import { IpcConnection } from './ipc-connection.js';
import { endpointFor, queryProcessInfo } from './process-info.js';

/**
 * Take a process dump without any .NET tool: ask the target's runtime over the diagnostics IPC
 * (Dump command set) to write a core dump of itself. The runtime starts its createdump helper,
 * which suspends the process, writes the file and only then answers — so the answer's arrival is
 * the end of the dump, and the file is written by the *target's* user at a path we name.
 */

/** What the CLI and the app offer: WithHeap (what memory analysis needs) or Full (every mapped page). */
export type DumpKind = 'heap' | 'full';

export const DUMP_TYPE_CODES: Readonly<Record<DumpKind, number>> = { heap: DumpType.WithHeap, full: DumpType.Full };

export interface WriteDumpOptions {
  pid: number;
  /** Absolute path the target process will create (it resolves relative paths against its own directory). */
  path: string;
  kind: DumpKind;
  timeoutSec: number;
  /** Called after each request is written (tests use it to kill the target mid-dump). */
  onRequestSent?: (command: number) => void;
  /** Whether the target is gone (no process, or a zombie); tests stand in a fake target's death. */
  targetGone?: (pid: number) => Promise<boolean>;
}

export interface WriteDumpResult {
  path: string;
  bytes: number;
  kind: DumpKind;
  pid: number;
  ms: number;
  /** Which GenerateCoreDump command the runtime accepted (3, 2 or 1). */
  command: number;
}

/** `<process name>_<pid>_<yyyymmdd_hhmmss>.dmp` (local time); the name from the entry assembly, else /proc/PID/comm. */
export function defaultProcessDumpName(processName: string | null, pid: number, now = new Date()): string {
  const safe = (processName ?? '').replace(/\.(dll|exe)$/i, '').replace(/[^\w.-]+/g, '_').slice(0, 60) || 'dotnet';
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}_${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `${safe}_${pid}_${stamp}.dmp`;
}

/** The name a dump of `pid` is called by: its entry assembly (ProcessInfo2+), else its comm. Never throws. */
export async function processNameFor(pid: number): Promise<string | null> {
  try {
    const info = await queryProcessInfo(await endpointFor(pid), 5_000);
    if (info.entrypointAssembly) return info.entrypointAssembly;
  } catch {
    /* fall through to /proc */
  }
  try {
    return (await readFile(`/proc/${pid}/comm`, 'utf8')).trim() || null;
  } catch {
    return null;
  }
}

export async function writeProcessDump(opts: WriteDumpOptions): Promise<WriteDumpResult> {
  const { pid, path, kind } = opts;
  if (!isAbsolute(path)) throw new AppError('usage/bad-argument', `the dump path must be absolute (the target process opens it): ${path}`);
  await checkTarget(path);
  const endpoint = await endpointFor(pid); // process/not-found, process/not-dotnet
  const started = Date.now();
  const deadline = started + opts.timeoutSec * 1000;
  for (const command of DUMP_COMMANDS_NEWEST_FIRST) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw await timeoutError(opts);
    const conn = await IpcConnection.connect(endpoint, Math.min(remaining, 30_000));
    let answer;
    try {
      conn.write(generateCoreDump(command, path, DUMP_TYPE_CODES[kind]));
      opts.onRequestSent?.(command);
      answer = await withDeadline(unlessGone(conn.readResponse(), opts), deadline - Date.now());
    } catch (e) {
      if (e === TIMED_OUT) throw await timeoutError(opts);
      if (e instanceof AppError && e.code === 'process/exited') throw await connectionLost(opts, e);
      throw e;
    } finally {
      conn.close();
    }
    const r = decodeDumpResponse(answer, command);
    if (r.kind === 'unknown-command') continue;
    if (r.kind === 'error') {
      const said = r.message ? runtimeSays(r.message) : '';
      const why = said ? `: ${said}` : '';
      throw new AppError(
        'dump/refused',
        `the runtime of process ${pid} refused to write the dump, HRESULT ${describeDumpHresult(r.hresult)}${why} ` +
          `(the path must be absolute, in an existing directory, and writable by the target process's user)${await partialNote(path)}`,
        { hresult: r.hresult >>> 0, ...(r.message ? { runtimeMessage: r.message } : {}) },
      );
    }
    const bytes = await fileSize(path);
    if (bytes <= 0) {
      throw new AppError(
        'dump/refused',
        `the runtime of process ${pid} reported success but ${bytes < 0 ? 'no file exists' : 'the file is empty'} at ${path} ` +
          `(it must be writable by the target process's user)`,
      );
    }
    return { path, bytes, kind, pid, ms: Date.now() - started, command };
  }
  throw new AppError('dump/refused', `the runtime of process ${pid} does not support writing dumps over the diagnostics IPC (no GenerateCoreDump command)`);
}

/** The runtime relays createdump's console lines: keep what they say, on one line, without the timing. */
export function runtimeSays(message: string): string {
  return message
    .split(/\r?\n/)
    .map((l) => l.replace(/^\[createdump\]\s*/, '').trim())
    .filter((l) => l !== '' && !/^Failure took \d+ms$/.test(l))
    .join('; ');
}

/** The directory must exist and the file must not: we never overwrite, and a fresh file is what we verify. */
async function checkTarget(path: string): Promise<void> {
  const dir = dirname(path);
  const d = await stat(dir).catch(() => null);
  if (!d || !d.isDirectory()) throw new AppError('io/not-found', `the dump's directory does not exist: ${dir}`);
  if ((await fileSize(path)) >= 0) throw new AppError('usage/bad-argument', `${basename(path)} already exists in ${dir}; choose another -o or delete it`);
}

const TIMED_OUT = Symbol('timed out');

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(TIMED_OUT), Math.max(0, ms));
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

async function timeoutError(opts: WriteDumpOptions): Promise<AppError> {
  const size = await fileSize(opts.path);
  const left = size >= 0 ? `; the runtime may still be writing ${opts.path} (${size} bytes so far): delete it if it stays incomplete` : '';
  return new AppError('dump/timeout', `process ${opts.pid} did not finish its dump within ${opts.timeoutSec} s (try --timeout)${left}`);
}

/**
 * The runtime closed the connection without answering. If the process is gone it died mid-dump:
 * createdump deletes its own partial file when its writes fail, and we remove whatever is left so
 * no truncated dump looks like a good one — and say so.
 */
async function connectionLost(opts: WriteDumpOptions, cause: AppError): Promise<AppError> {
  if (!(await goneWithin(opts, 2_000))) return new AppError('process/protocol', `process ${opts.pid} closed the diagnostics connection without answering the dump request (${cause.message})`);
  return new AppError('dump/process-exited', `process ${opts.pid} exited while its dump was being written${await partialNote(opts.path)}`);
}

/** Remove a partial file after a failure and say what happened to it. */
async function partialNote(path: string): Promise<string> {
  if ((await fileSize(path)) < 0) return '; no dump file was left behind';
  try {
    await unlink(path);
    return `; removed the partial file ${path}`;
  } catch {
    return `; a partial file was left at ${path} (it could not be removed: delete it)`;
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return -1;
  }
}

/** True once the target no longer exists or is a zombie (killed, not yet reaped by its parent). */
async function goneWithin(opts: WriteDumpOptions, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await (opts.targetGone ?? targetGone)(opts.pid)) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function targetGone(pid: number): Promise<boolean> {
  return !processExists(pid) || (await isZombie(pid));
}

/**
 * `answer`, or a process/exited error as soon as the target is gone (checked every 250 ms). The
 * connection alone does not always tell: a process that dies while its createdump child runs may
 * leave the socket open as long as that child holds an inherited copy of it, and the read would
 * then wait out the whole --timeout for a process that no longer exists.
 */
function unlessGone<T>(answer: Promise<T>, opts: WriteDumpOptions): Promise<T> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearInterval(poll);
      f();
    };
    const poll = setInterval(() => {
      void (opts.targetGone ?? targetGone)(opts.pid).then((gone) => {
        if (gone) settle(() => reject(new AppError('process/exited', `process ${opts.pid} is gone and never answered`)));
      });
    }, 250);
    answer.then(
      (v) => settle(() => resolve(v)),
      (e: unknown) => settle(() => reject(e)),
    );
  });
}

async function isZombie(pid: number): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  try {
    const s = await readFile(`/proc/${pid}/stat`, 'utf8');
    return s.slice(s.lastIndexOf(')') + 2, s.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return true;
  }
}
