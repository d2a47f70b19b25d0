import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { defaultProcessDumpName } from '../diagnostics/dump-writer.js';

/**
 * Where live captures are saved: one .gcdump per capture in the app's capture cache directory
 * (`<config dir>/captures` unless the shell says otherwise). Saving every capture is what makes
 * a captured tab an ordinary session: it can be reopened from Recent files, diffed, exported and
 * copied elsewhere with "Save snapshot as…".
 *
 * The cache is bounded by count: after each new capture the oldest files beyond `keep` are
 * deleted, except those an open session still reads (a captured tab's file must not vanish
 * under it). Leftover `.partial` files (a capture killed while writing) go too. Process dumps
 * (`.dmp`, written by `captureDump`) are counted with the snapshots.
 */
export const DEFAULT_KEEP_CAPTURES = 20;

export class CaptureStore {
  readonly dir: string;

  constructor(
    dir: string,
    private readonly keep = DEFAULT_KEEP_CAPTURES,
  ) {
    this.dir = resolve(dir);
  }

  /** A fresh path `<name>_YYYYMMDD_HHMMSS_<pid>.gcdump` (dotnet-gcdump's naming, with the process name in front). */
  async newPath(pid: number, processName: string | null, now = new Date()): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const safe = (processName ?? '').replace(/\.(dll|exe)$/i, '').replace(/[^\w.-]+/g, '_').slice(0, 60);
    const p = (n: number) => String(n).padStart(2, '0');
    const stamp = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}_${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
    const stem = `${safe ? `${safe}_` : ''}${stamp}_${pid}`;
    for (let i = 1; ; i++) {
      const path = join(this.dir, i === 1 ? `${stem}.gcdump` : `${stem}-${i}.gcdump`);
      if (!(await exists(path)) && !(await exists(`${path}.partial`))) return path;
    }
  }

  /**
   * A fresh absolute path for a process dump, `<name>_<pid>_<yyyymmdd_hhmmss>.dmp` (as `heapscope
   * dump` names them). The target process writes it, so the folder is created here first.
   */
  async newDumpPath(pid: number, processName: string | null, now = new Date()): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const stem = defaultProcessDumpName(processName, pid, now).replace(/\.dmp$/, '');
    for (let i = 1; ; i++) {
      const path = join(this.dir, i === 1 ? `${stem}.dmp` : `${stem}-${i}.dmp`);
      if (!(await exists(path))) return path;
    }
  }

  /** Delete captures beyond the newest `keep`, never one in `inUse`. Returns the deleted paths. */
  async prune(inUse: ReadonlySet<string>): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const files: { path: string; mtime: number; partial: boolean }[] = [];
    for (const n of names) {
      const partial = n.endsWith('.gcdump.partial');
      if (!partial && !n.endsWith('.gcdump') && !n.endsWith('.dmp')) continue;
      try {
        files.push({ path: join(this.dir, n), mtime: (await stat(join(this.dir, n))).mtimeMs, partial });
      } catch {
        /* raced with another delete */
      }
    }
    files.sort((a, b) => b.mtime - a.mtime);
    const deleted: string[] = [];
    let kept = 0;
    for (const f of files) {
      if (inUse.has(f.path) || inUse.has(f.path.replace(/\.partial$/, ''))) continue;
      // a .partial younger than an hour may be a capture being written right now
      const stale = f.partial ? Date.now() - f.mtime > 3_600_000 : ++kept > this.keep;
      if (!stale) continue;
      await unlink(f.path).then(
        () => deleted.push(f.path),
        () => undefined,
      );
    }
    return deleted;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
