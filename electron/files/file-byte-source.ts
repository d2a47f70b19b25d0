import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename } from 'node:path';
import { AppError } from '../../shared/errors.js';
import type { ByteSource } from '../../shared/util/byte-source.js';

/**
 * A ByteSource over a file on disk. Each `read` is one positioned read into a fresh buffer, so
 * readers control memory by the chunk sizes they ask for; nothing reads the whole file at once.
 */
export class FileByteSource implements ByteSource {
  private constructor(
    private readonly handle: FileHandle,
    readonly size: number,
    readonly name: string,
    /** The file's path, for readers that hand the file to a helper process (process dumps). */
    readonly path: string,
  ) {}

  static async open(path: string): Promise<FileByteSource> {
    const { handle, size } = await openRegularFile(path);
    return new FileByteSource(handle, size, basename(path), path);
  }

  async read(offset: number, length: number, reuse?: Uint8Array): Promise<Uint8Array> {
    const len = Math.max(0, Math.min(length, this.size - offset));
    const buf = reuse && reuse.length >= len ? reuse.subarray(0, len) : new Uint8Array(len);
    let done = 0;
    try {
      while (done < len) {
        const { bytesRead } = await this.handle.read(buf, done, len - done, offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
    } catch (e) {
      throw mapFsError(e, this.name);
    }
    return done === len ? buf : buf.subarray(0, done);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

export function mapFsError(e: unknown, path: string): AppError {
  if (e instanceof AppError) return e;
  const code = (e as { code?: string }).code;
  if (code === 'ENOENT') return new AppError('io/not-found', `no such file: ${path}`);
  if (code === 'EACCES' || code === 'EPERM') return new AppError('io/denied', `permission denied: ${path}`);
  return new AppError('io/read-failed', `cannot read ${path}: ${(e as Error).message ?? String(e)}`);
}

/**
 * Open `path` for reading only if it is a regular file; anything else is one `io/not-a-file` error
 * at once. Opening a FIFO that has no writer blocks until one appears (forever, for a stray
 * `mkfifo`), reading /dev/zero or /dev/urandom never ends, and a directory or socket cannot be
 * read at all. The stat before the open refuses them without touching them; the open itself is
 * non-blocking (so a FIFO swapped in after the stat cannot hang it either; no effect on regular
 * files) and the handle is checked again, so what gets read is the file that was checked.
 */
export async function openRegularFile(path: string): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle | undefined;
  try {
    refuseSpecial(await stat(path), path);
    handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const st = await handle.stat();
    refuseSpecial(st, path);
    return { handle, size: st.size };
  } catch (e) {
    await handle?.close().catch(() => {});
    throw mapFsError(e, path);
  }
}

function refuseSpecial(st: Stats, path: string): void {
  if (st.isFile()) return;
  throw new AppError('io/not-a-file', `${path} is ${specialKind(st)}, not a snapshot file`);
}

function specialKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}
