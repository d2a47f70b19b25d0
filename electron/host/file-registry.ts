import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, resolve } from 'node:path';
import { DETECT_BYTES, detectFormat } from '../../shared/formats/detect.js';
import { AppError, FormatError } from '../../shared/errors.js';
import type { FileEntry, FileFormatHint, FileSource, FileToken } from '../../shared/ipc/contract.js';
import { openRegularFile } from '../files/file-byte-source.js';

/**
 * Which files the UI may open, by opaque token (ARCHITECTURE §9.8: the renderer never sends a
 * path it typed itself).
 *
 * Paths enter only here, from places main trusts or checks: the open dialog, the command line,
 * macOS open-file events, the recent list, the bundled sample, a dropped file's path (Electron:
 * webUtils.getPathForFile) or browser mode's "open path" box. Before a token is issued the path
 * must be an existing, readable regular file whose first bytes are a snapshot format we read
 * (detect.ts). So even a compromised renderer that forges a "dropped" path can only get tokens
 * for snapshot files, never read /etc/passwd through us. Tokens are 128 random bits, stable per
 * path for the life of the process.
 */
export class FileRegistry {
  private readonly byToken = new Map<FileToken, { path: string; source: FileSource }>();
  private readonly byPath = new Map<string, FileToken>();

  /** Validate `path` as a snapshot file and issue (or reuse) its token. */
  async register(path: string, source: FileSource): Promise<FileEntry> {
    if (typeof path !== 'string' || path.length === 0 || path.length > 4096 || path.includes('\0')) {
      throw new AppError('usage/bad-argument', 'not a file path');
    }
    const abs = isAbsolute(path) ? resolve(path) : resolve(process.cwd(), path);
    await checkSnapshotFile(abs);
    return this.entry(abs, source);
  }

  /**
   * `register` for a tab of a restored session: the same checks, but a path this process already
   * knows keeps its source (an upload stays an upload after a page reload); a new one is 'path'.
   */
  async reregister(path: string): Promise<FileEntry> {
    const known = typeof path === 'string' ? this.byPath.get(resolve(path)) : undefined;
    const source = (known && this.byToken.get(known)?.source) ?? 'path';
    return this.register(path, source);
  }

  /** Token for a path without validating it (recent files: `exists` tells whether it is still there). */
  async describe(path: string, source: FileSource): Promise<FileEntry> {
    return this.entry(resolve(path), source);
  }

  /** The path behind a token. */
  resolve(token: FileToken): string {
    const hit = this.byToken.get(token);
    if (!hit) throw new AppError('usage/bad-argument', 'unknown file token (choose the file again)');
    return hit.path;
  }

  async entryOf(token: FileToken): Promise<FileEntry> {
    const hit = this.byToken.get(token);
    if (!hit) throw new AppError('usage/bad-argument', 'unknown file token (choose the file again)');
    return this.entry(hit.path, hit.source);
  }

  private async entry(abs: string, source: FileSource): Promise<FileEntry> {
    let token = this.byPath.get(abs);
    if (!token) {
      token = randomBytes(16).toString('hex') as FileToken;
      this.byPath.set(abs, token);
    }
    this.byToken.set(token, { path: abs, source });
    let size = 0;
    let modifiedMs = 0;
    let exists = false;
    try {
      const st = await stat(abs);
      exists = st.isFile();
      size = st.size;
      modifiedMs = Math.round(st.mtimeMs);
    } catch {
      exists = false;
    }
    return { token, name: basename(abs), displayPath: abs, size, modifiedMs, source, formatHint: formatHint(abs), exists };
  }
}

/** Existing, readable, regular, and starts like a snapshot we can read. */
export async function checkSnapshotFile(abs: string): Promise<void> {
  // A FIFO, device or directory is refused (io/not-a-file) before anything reads from it.
  const { handle: fh, size } = await openRegularFile(abs);
  try {
    const head = new Uint8Array(Math.min(DETECT_BYTES, size));
    await fh.read(head, 0, head.length, 0);
    if (detectFormat(head) === 'unknown') {
      throw new FormatError('format/unknown', `${basename(abs)} is not a .gcdump, .nettrace or Compact Framework heap log`, { offset: 0 });
    }
  } finally {
    await fh.close();
  }
}

export function formatHint(path: string): FileFormatHint {
  switch (extname(path).toLowerCase()) {
    case '.gcdump':
      return 'gcdump';
    case '.nettrace':
      return 'nettrace';
    case '.log':
    case '.txt':
      return 'cf-heaplog';
    default:
      return null;
  }
}
