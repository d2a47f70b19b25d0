import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from './dotnet-app';

/**
 * The setup the process-dump tests share (vitest and Playwright alike, so only Node imports here):
 * build a test/dotnet app, run it, write its core with the project's own `heapscope dump`, and end
 * it. `heapscope dump` runs as a child process (bin/heapscope.mjs) so that a Playwright spec can
 * use this too; its few seconds of start-up are small beside building and dumping the app.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const HELPER = process.env.HEAPSCOPE_DUMP_READER ?? join(ROOT, 'out', 'dump-reader', 'heapscope-dump-reader.dll');

/** Why process-dump tests cannot run here (a sentence naming `what` is skipped), or null. Linux only: the runtime writes ELF cores there. */
export function processDumpSkip(what: string): string | null {
  if (!HAS_DOTNET) return DOTNET_MISSING;
  if (process.platform !== 'linux') return 'heapscope dump writes core dumps on Linux only here';
  if (!existsSync(HELPER)) return `the dump reader is not built (npm run build:dump-reader): ${what} skipped`;
  return null;
}

export interface AppDump {
  /** A fresh temp directory holding the dump (and whatever the app wrote there); the caller removes it. */
  dir: string;
  dump: string;
  /** The dumped app: already ended unless keepRunning was asked for (then end it with stopDumped). */
  app: RunningApp;
}

export interface AppDumpOptions {
  /** mkdtemp prefix of the directory, e.g. 'heapscope-strings-'. */
  prefix: string;
  /** The dump's file name in that directory. */
  file: string;
  /** The app's command line, given the directory (for files the app writes, e.g. --info). */
  args?: (dir: string) => string[];
  /** Leave the app running (for a .gcdump of the same process after the dump). */
  keepRunning?: boolean;
  /** How long the app may take to say READY (a large heap takes longer); startDotnetApp's default otherwise. */
  startTimeoutMs?: number;
  /** `heapscope dump --type`: heap (its default) or full. */
  type?: 'heap' | 'full';
}

/** Build and start test/dotnet/`appName`, `heapscope dump -p PID -o dir/file` it, end it (see keepRunning). */
export async function dumpDotnetApp(appName: string, o: AppDumpOptions): Promise<AppDump> {
  const dir = mkdtempSync(join(tmpdir(), o.prefix));
  const dump = join(dir, o.file);
  const app = await startDotnetApp(buildDotnetApp(appName), o.args?.(dir) ?? [], o.startTimeoutMs);
  try {
    await heapscopeDump(app.pid, dump, o.type);
  } catch (e) {
    await stopDumped(app);
    throw e;
  }
  if (!o.keepRunning) await stopDumped(app);
  return { dir, dump, app };
}

/** `heapscope dump -p pid -o out` as a child process; rejects with its stderr unless it exits 0 (or after 3 minutes: a hang). */
function heapscopeDump(pid: number, out: string, type?: 'heap' | 'full'): Promise<void> {
  return new Promise((ok, fail) => {
    const args = [join(ROOT, 'bin', 'heapscope.mjs'), 'dump', '-p', String(pid), '-o', out, ...(type ? ['--type', type] : [])];
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    child.on('error', fail);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) ok();
      else fail(new Error(`heapscope dump failed (${code ?? signal}): ${err}`));
    });
  });
}

/** Alive and not a zombie (after createdump has attached, Node may never see the exit event). */
export function alive(pid: number): boolean {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return st.slice(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * End a dumped app: close its stdin (the test apps exit then), SIGKILL after 10 s. Observed on
 * .NET 10, Linux: once the runtime's createdump has ptrace-attached to a process, Node never emits
 * that child's 'exit' event although the process does end, so RunningApp.stop() would wait
 * forever: watch /proc instead.
 */
export async function stopDumped(app: RunningApp): Promise<void> {
  app.child.stdin?.end();
  for (let i = 0; alive(app.pid); i++) {
    if (i === 100) app.child.kill('SIGKILL');
    if (i > 200) throw new Error(`process ${app.pid} did not end`);
    await new Promise((r) => setTimeout(r, 100));
  }
  app.child.stdout?.destroy();
  app.child.unref();
}
