import { readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Finding .NET processes and their diagnostic endpoints (diagnostics-ipc.md §2).
 *
 * Linux/macOS: every .NET process listens on `dotnet-diagnostic-{pid}-{key}-socket` in ITS temp
 * directory (TMPDIR of the target, /tmp by default). Windows: `\\.\pipe\dotnet-diagnostic-{pid}`.
 * We never compute the key: we list the directory and take the newest match, as the official
 * client does.
 */
export interface DotnetProcess {
  pid: number;
  endpoint: string;
  /** Process name (from /proc/{pid}/comm or the command line), when readable. */
  name: string | null;
  commandLine: string | null;
}

const SOCKET_RE = /^dotnet-diagnostic-(\d+)-(\d+)-socket$/;
const PIPE_RE = /^dotnet-diagnostic-(\d+)$/;

function candidateTempDirs(): string[] {
  const dirs = new Set<string>();
  if (process.env.TMPDIR) dirs.add(process.env.TMPDIR);
  dirs.add(tmpdir());
  dirs.add('/tmp');
  return [...dirs];
}

/** Live .NET processes with a diagnostic endpoint, sorted by pid. */
export async function listDotnetProcesses(): Promise<DotnetProcess[]> {
  if (process.platform === 'win32') return listWindowsPipes();
  const out: DotnetProcess[] = [];
  for (const [pid, path] of await newestSockets(candidateTempDirs())) {
    if (!isAlive(pid)) continue; // a stale socket left by a crashed process
    out.push({ pid, endpoint: path, ...(await describeProcess(pid)) });
  }
  return out.sort((a, b) => a.pid - b.pid);
}

/**
 * The newest `dotnet-diagnostic-{pid}-{key}-socket` per pid found in `dirs` (only `pid`'s when
 * given). A pid can be reused after a crash left its socket behind, so on Linux a socket whose key
 * is not the live process's start time (`/proc/{pid}/stat`, what the runtime puts there) is
 * skipped: otherwise any process that inherits a dead .NET process's pid looks like .NET (seen
 * in our own test runs, which kill many .NET processes). Elsewhere, or when the start time is not
 * readable, the newest wins.
 */
async function newestSockets(dirs: readonly string[], pid?: number): Promise<Map<number, string>> {
  const newest = new Map<number, { path: string; mtime: number }>();
  const keys = new Map<number, string | null>();
  for (const dir of dirs) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      continue;
    }
    for (const n of names) {
      const m = SOCKET_RE.exec(n);
      if (!m) continue;
      const p = Number(m[1]);
      if (pid !== undefined && p !== pid) continue;
      if (!keys.has(p)) keys.set(p, await startTimeKey(p));
      const key = keys.get(p);
      if (key != null && key !== m[2]) continue; // left by an earlier process with this pid
      const path = join(dir, n);
      let mtime: number;
      try {
        mtime = (await stat(path)).mtimeMs;
      } catch {
        continue; // raced with the process exiting
      }
      const prev = newest.get(p);
      if (!prev || mtime > prev.mtime) newest.set(p, { path, mtime });
    }
  }
  return new Map([...newest].map(([p, v]) => [p, v.path]));
}

async function listWindowsPipes(): Promise<DotnetProcess[]> {
  let names: string[] = [];
  try {
    names = await readdir('\\\\.\\pipe\\');
  } catch {
    return [];
  }
  const out: DotnetProcess[] = [];
  for (const n of names) {
    const m = PIPE_RE.exec(n);
    if (m) out.push({ pid: Number(m[1]), endpoint: `\\\\.\\pipe\\${n}`, name: null, commandLine: null });
  }
  return out.sort((a, b) => a.pid - b.pid);
}

/** The runtime's disambiguation key for `pid` on Linux: its start time in clock ticks since boot; null when unknown. */
export async function startTimeKey(pid: number): Promise<string | null> {
  if (process.platform !== 'linux') return null;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold blanks and parentheses, so count from the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return /^\d+$/.test(fields[19] ?? '') ? fields[19] : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function describeProcess(pid: number): Promise<{ name: string | null; commandLine: string | null }> {
  if (process.platform !== 'linux') return { name: null, commandLine: null };
  let name: string | null = null;
  let commandLine: string | null = null;
  try {
    name = (await readFile(`/proc/${pid}/comm`, 'utf8')).trim() || null;
  } catch {
    /* not readable: leave null */
  }
  try {
    const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    commandLine = raw.split('\0').filter(Boolean).join(' ') || null;
  } catch {
    /* not readable */
  }
  return { name, commandLine };
}

/**
 * The diagnostic endpoint of `pid`, or null when it has none (not a .NET process, or exited).
 * Looks in the target's own TMPDIR first (read from /proc/{pid}/environ on Linux).
 */
export async function findEndpoint(pid: number): Promise<string | null> {
  if (process.platform === 'win32') return `\\\\.\\pipe\\dotnet-diagnostic-${pid}`;
  const dirs = candidateTempDirs();
  if (process.platform === 'linux') {
    try {
      const env = await readFile(`/proc/${pid}/environ`, 'utf8');
      const tmp = env.split('\0').find((kv) => kv.startsWith('TMPDIR='));
      if (tmp && tmp.length > 7) dirs.unshift(tmp.slice(7));
    } catch {
      /* other user's process, or gone: fall back to our temp dirs */
    }
  }
  return (await newestSockets(dirs, pid)).get(pid) ?? null;
}

export function processExists(pid: number): boolean {
  return isAlive(pid);
}
