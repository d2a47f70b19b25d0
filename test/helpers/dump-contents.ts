import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../electron/cli/main.js';
import { findDumpHelper } from '../../electron/dump-reader/helper-process.js';
import { captureIo } from './capture-io.js';
import { buildDotnetApp, DOTNET_MISSING, HAS_DOTNET, startDotnetApp, type RunningApp } from './dotnet-app.js';

/**
 * A process dump of test/dotnet/DumpContentsApp (known field values, a Timer holding a disposed
 * Clock, threads parked in ParkedWorker.HoldLocals / WaitInCatch) written by `heapscope dump`,
 * for the dump query tests. Linux only (the runtime writes ELF cores there; CI runs Linux).
 */
export const DUMP_CONTENTS_SKIP: string | null = !HAS_DOTNET
  ? DOTNET_MISSING
  : process.platform !== 'linux'
    ? 'heapscope dump tests run on Linux'
    : !findDumpHelper()
      ? 'the dump reader is not built (npm run build:dump-reader): dump query tests skipped'
      : null;

export interface ContentsDump {
  dir: string;
  dump: string;
  /** Environment.Version as the program printed it. */
  runtimeVersion: string;
  pid: number;
}

export async function writeContentsDump(): Promise<ContentsDump> {
  const dir = mkdtempSync(join(tmpdir(), 'heapscope-dump-contents-'));
  const info = join(dir, 'info.txt');
  const app = await startDotnetApp(buildDotnetApp('DumpContentsApp'), ['--info', info]);
  const dump = join(dir, 'contents.dmp');
  try {
    const c = captureIo();
    const code = await runCli(['dump', '-p', String(app.pid), '-o', dump], c.io);
    if (code !== 0) throw new Error(`heapscope dump failed (${code}): ${c.err}`);
  } finally {
    await stopDumped(app);
  }
  const runtimeVersion = /RUNTIME (\S+)/.exec(readFileSync(info, 'utf8'))![1];
  return { dir, dump, runtimeVersion, pid: app.pid };
}

function alive(pid: number): boolean {
  try {
    const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return st.slice(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * End a dumped app. After the runtime's createdump has ptrace-attached to a process, Node may never
 * emit the child's 'exit' event (seen on .NET 10, Linux; see live-dump.test.ts): watch /proc instead.
 */
async function stopDumped(app: RunningApp): Promise<void> {
  app.child.stdin?.end();
  for (let i = 0; alive(app.pid); i++) {
    if (i === 100) app.child.kill('SIGKILL');
    if (i > 200) throw new Error(`process ${app.pid} did not end`);
    await new Promise((r) => setTimeout(r, 100));
  }
  app.child.stdout?.destroy();
  app.child.unref();
}
