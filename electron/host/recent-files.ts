import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * The recent-files list: a small JSON file in the app's config directory (Electron passes
 * `app.getPath('userData')`, browser mode `~/.config/heapscope` or $HEAPSCOPE_CONFIG_DIR).
 *
 * Writes go to a temp file and are renamed over the old one, so a crash mid-write leaves the old
 * list intact; an unreadable or malformed file counts as an empty list rather than an error (the
 * list is a convenience, never a reason not to start).
 *
 * A browser-mode upload is never listed: it is a temp copy of a file the browser sent, deleted
 * when the server stops, so a later "Recent files" entry for it could only say "missing".
 */
export interface RecentFile {
  path: string;
  openedAt: number;
}

export const MAX_RECENT = 20;

/**
 * Where `heapscope serve` keeps uploads: mkdtemp(<tmp>/heapscope-serve-XXXXXX)/uploads/<hex>/<name>
 * (electron/server/serve.ts and http-server.ts). Matched on the path alone, so entries recorded by
 * an older version are dropped even after their server removed the directory.
 */
const UPLOAD_DIR = /[\\/]heapscope-serve-[A-Za-z0-9]{6}[\\/]uploads[\\/][0-9a-f]+[\\/][^\\/]+$/;

/** True for a browser-mode upload's temp copy. */
export function isUploadedTempFile(path: string): boolean {
  return UPLOAD_DIR.test(path);
}

export class RecentFiles {
  private readonly file: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(configDir: string, private readonly max = MAX_RECENT) {
    this.file = join(configDir, 'recent-files.json');
  }

  async list(): Promise<RecentFile[]> {
    try {
      const data = JSON.parse(await readFile(this.file, 'utf8')) as { version?: number; files?: unknown };
      if (data.version !== 1 || !Array.isArray(data.files)) return [];
      return data.files
        .filter((f): f is RecentFile => typeof f?.path === 'string' && typeof f?.openedAt === 'number' && !isUploadedTempFile(f.path))
        .slice(0, this.max);
    } catch {
      return [];
    }
  }

  add(path: string, now = Date.now()): Promise<void> {
    const abs = resolve(path);
    if (isUploadedTempFile(abs)) return this.queue.then(() => undefined);
    return this.update((files) => [{ path: abs, openedAt: now }, ...files.filter((f) => f.path !== abs)]);
  }

  remove(path: string): Promise<void> {
    const abs = resolve(path);
    return this.update((files) => files.filter((f) => f.path !== abs));
  }

  clear(): Promise<void> {
    return this.update(() => []);
  }

  /** Serialised read-modify-write (two opens finishing together must not lose an entry). */
  private update(f: (files: RecentFile[]) => RecentFile[]): Promise<void> {
    const run = this.queue.then(async () => {
      const next = f(await this.list()).slice(0, this.max);
      await mkdir(join(this.file, '..'), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify({ version: 1, files: next }, null, 2));
      await rename(tmp, this.file);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
